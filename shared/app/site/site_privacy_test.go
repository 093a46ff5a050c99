package site_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// lockedBuffer is a log destination safe for concurrent handlers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestPagePathsNoRouteServesStayOutOfTheLog: on the local server (the API
// and the pages on one port), a request under a page path that no page
// route serves — a link checker's OPTIONS or PUT, a mail client's trailing
// slash — answers 404, and neither request log holds the page id, which is
// the recipient's credential. It went to the API, whose request log keeps
// the path: the whole id of a legacy page, the start of a new one's secret.
func TestPagePathsNoRouteServesStayOutOfTheLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	if _, err := seed.SeedCatalog(ctx, s); err != nil {
		t.Fatal(err)
	}
	_, key := testenv.Org(t, s, "ab", 1000)
	logs := &lockedBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	api := httpapi.NewServer(s, service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: log}),
		httpapi.Config{Logger: log}).Handler(httpapi.Groups...)
	h := site.With(api, site.New(s, log))
	local := testenv.HandlerAPI(t, h, key)

	created := local.Do("POST", "/api/campaigns", map[string]any{"name": "Thanks",
		"campaignData": map[string]any{"giftIds": []string{"gift-artisan-coffee"}}})
	if created.Status != http.StatusCreated {
		t.Fatalf("create campaign: %d %s", created.Status, created.Body)
	}
	var campaign struct {
		Data struct{ CampaignID string } `json:"data"`
	}
	created.JSON(t, &campaign)
	added := local.Do("POST", "/api/campaigns/campaigns/"+campaign.Data.CampaignID+"/add-recipient",
		map[string]any{"contactDetails": map[string]any{"email": "ada@example.com", "firstName": "Ada"}})
	if added.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", added.Status, added.Body)
	}
	var rcpt struct{ LandingPageURL, ClaimPageURL string }
	added.JSON(t, &rcpt)
	pageIDs := map[string]string{}
	for name, u := range map[string]string{"landing": rcpt.LandingPageURL, "claim": rcpt.ClaimPageURL} {
		p, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		pageIDs[name] = p.Path[strings.LastIndex(p.Path, "/")+1:]
	}
	landing, claim := pageIDs["landing"], pageIDs["claim"]
	// The secret is the last dot-separated part of a page id.
	secretOf := func(id string) string { return id[strings.LastIndex(id, ".")+1:] }

	for _, tt := range []struct{ name, method, path, secret string }{
		{"OPTIONS of a landing page", "OPTIONS", "/gift/" + landing, secretOf(landing)},
		{"PUT of a claim page", "PUT", "/claim/" + claim, secretOf(claim)},
		{"landing page with a trailing slash", "GET", "/gift/" + landing + "/", secretOf(landing)},
		{"GET of the acknowledge form's address", "GET", "/gift/" + landing + "/acknowledge", secretOf(landing)},
		{"unsubscribe with a trailing segment", "GET", "/unsubscribe/" + landing + "/confirm", secretOf(landing)},
		{"a legacy page id under a path no route has", "DELETE", "/gift/abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Undocumented requests: sent past testenv.API, which holds
			// every answer to the API document.
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
			if rec.Code != http.StatusNotFound {
				t.Errorf("%s %s: %d, want 404", tt.method, tt.path, rec.Code)
			}
			// The organization "ab" leaves 7 of the secret's 20 characters
			// within the 64 bytes the request log keeps of a segment.
			if out := logs.String(); strings.Contains(out, tt.secret[:6]) {
				t.Errorf("the log holds the page id's secret %q: %s", tt.secret, out)
			}
		})
	}
	t.Run("the pages still answer", func(t *testing.T) {
		if res := local.Do("GET", "/gift/"+landing, nil); res.Status != http.StatusOK {
			t.Errorf("GET the landing page: %d", res.Status)
		}
		if res := local.Do("GET", "/api/campaigns/wallet", nil); res.Status != http.StatusOK {
			t.Errorf("GET the wallet: %d", res.Status)
		}
	})
}
