package pages_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// deadEndpoint is the address of a DynamoDB that is down: a port nothing
// listens on.
func deadEndpoint(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// TestPagesWhileStorageIsDown: while DynamoDB cannot be reached, the claim
// page and the landing page answer 503 with Retry-After and a page that
// says to try again, not a 500.
func TestPagesWhileStorageIsDown(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	db, err := app.NewDynamoDB(context.Background(), deadEndpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	f.h = site.New(dynamo.New(db, f.s.Table()), testenv.Quiet)
	for _, tc := range []struct{ method, path string }{
		{"GET", "/claim/" + r.ClaimPageID},
		{"POST", "/claim/" + r.ClaimPageID},
		{"GET", "/gift/" + r.LandingPageID},
	} {
		// Each waits out the SDK's retries: side by side.
		t.Run(tc.method+" "+strings.Split(tc.path, "/")[1], func(t *testing.T) {
			t.Parallel()
			var res response
			if tc.method == "POST" {
				res = f.do(t, "POST", tc.path, address(f.cheap.GiftID))
			} else {
				res = f.do(t, "GET", tc.path, nil)
			}
			if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "" || !strings.Contains(res.body, "try again") {
				t.Errorf("%d, Retry-After %q; want 503 with Retry-After and a page to try again", res.status, res.header.Get("Retry-After"))
			}
		})
	}
}

// TestPageClientGone: a recipient who closes the page while it is read
// (the request's context cancelled) is no internal error: nothing is
// logged above INFO and the request log says 499, not 500.
func TestPageClientGone(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	var logs bytes.Buffer
	h := site.New(f.s, slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest("GET", "/claim/"+r.ClaimPageID, nil).WithContext(ctx)
	h.ServeHTTP(httptest.NewRecorder(), req)
	if strings.Contains(logs.String(), `"level":"ERROR"`) || strings.Contains(logs.String(), `"level":"WARN"`) {
		t.Errorf("a client gone is logged as a failure: %s", logs.String())
	}
	if !strings.Contains(logs.String(), `"status":499`) {
		t.Errorf("the request log does not say 499: %s", logs.String())
	}
	if got := f.recipient(t, r.RecipientID); got.Status != gifting.RecipientPending {
		t.Errorf("recipient %s, want untouched", got.Status)
	}
}
