package scheduler_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// page sends method path with body (form-encoded when not "") to the
// recipient pages over e's store and returns the status and page.
func (e *mailEnv) page(method, path, body string) (int, string, http.Header) {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	w := httptest.NewRecorder()
	site.New(e.store, nil).ServeHTTP(w, req)
	b, err := io.ReadAll(w.Result().Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return w.Code, string(b), w.Result().Header
}

// TestOneClickUnsubscribeStopsEmails unsubscribes as a mail client's
// RFC 8058 one-click POST does: the address is suppressed, the recipient's
// reminders never arrive, and doing it again is harmless.
func TestOneClickUnsubscribeStopsEmails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	res := e.add(c, "jane")
	e.wantSubjects("jane", invitation)
	r := e.recipient(c.CampaignID, res.Response.RecipientID)

	for i := range 2 { // the second time changes nothing
		status, body, h := e.page(http.MethodPost, "/unsubscribe/"+r.LandingPageID, "List-Unsubscribe=One-Click")
		if status != http.StatusOK || !strings.Contains(body, "You are unsubscribed") {
			t.Fatalf("POST %d: status %d, want 200 and the done page; body %s", i+1, status, body)
		}
		if h.Get("Content-Security-Policy") == "" || h.Get("Cache-Control") != "no-store" || h.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("POST %d: page safety headers missing: %v", i+1, h)
		}
	}

	e.clock.Advance(200 * time.Hour)
	e.tick()
	e.tick()
	e.wantSubjects("jane", invitation) // no reminder after the unsubscribe

	got := e.recipient(c.CampaignID, res.Response.RecipientID)
	if f := got.Emails.Reminder1.Failure; f != gifting.EmailUnsubscribed || got.Emails.Reminder1.Sent {
		t.Errorf("first reminder failure %q sent %v, want unsubscribed, not sent", f, got.Emails.Reminder1.Sent)
	}
	if !got.Emails.AddressConfirmation.Sent || got.Emails.AddressConfirmation.Failure != "" {
		t.Errorf("the invitation sent before the unsubscribe was rewritten: %+v", got.Emails.AddressConfirmation)
	}
	suppressed, err := e.store.IsSuppressed(ctx, e.orgID, e.address("jane"))
	if err != nil {
		t.Fatal(err)
	}
	if !suppressed {
		t.Error("the address is not on the organization's suppression list")
	}
	// Another campaign of the organization does not mail it either.
	if again := e.add(e.campaign(campaign.Live), "jane"); again.Response.EmailSent {
		t.Error("a later campaign mailed the unsubscribed address")
	}
	e.wantSubjects("jane", invitation)
}

// TestUnsubscribePage checks the page an email's link opens: a question
// and a button that changes nothing by itself, and 404 for a token no
// recipient has.
func TestUnsubscribePage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	res := e.add(c, "jane")
	r := e.recipient(c.CampaignID, res.Response.RecipientID)

	tests := []struct {
		name, method, path, wantText string
		want                         int
	}{
		{"the question and its button", http.MethodGet, "/unsubscribe/" + r.LandingPageID,
			`<form method="post" action="/unsubscribe/` + r.LandingPageID + `">`, http.StatusOK},
		{"unknown token", http.MethodGet, "/unsubscribe/" + strings.Repeat("a", len(r.LandingPageID)), "", http.StatusNotFound},
		{"malformed token", http.MethodGet, "/unsubscribe/nope", "", http.StatusNotFound},
		{"a claim page id is no token", http.MethodGet, "/unsubscribe/" + r.ClaimPageID, "", http.StatusNotFound},
		{"unknown token posted", http.MethodPost, "/unsubscribe/" + strings.Repeat("a", len(r.LandingPageID)), "", http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body, h := e.page(tt.method, tt.path, "List-Unsubscribe=One-Click")
			if status != tt.want || !strings.Contains(body, tt.wantText) {
				t.Errorf("status %d, want %d with %q; body %s", status, tt.want, tt.wantText, body)
			}
			if ct := h.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
				t.Errorf("Content-Type %q, want text/html", ct)
			}
		})
	}
	suppressed, err := e.store.IsSuppressed(ctx, e.orgID, e.address("jane"))
	if err != nil {
		t.Fatal(err)
	}
	if suppressed {
		t.Error("showing the page suppressed the address")
	}
	if got := e.recipient(c.CampaignID, res.Response.RecipientID); got.Emails.Reminder1.Failure != "" {
		t.Errorf("showing the page stopped the reminders: failure %q", got.Emails.Reminder1.Failure)
	}
}
