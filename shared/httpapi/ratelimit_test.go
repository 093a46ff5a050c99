package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// clock is a settable time for the store, so a test can step through rate
// windows without waiting for them.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestRateLimitPerOrganization(t *testing.T) {
	t.Parallel()
	// 20 s into a window, so the reset is 40 s away.
	clk := &clock{now: time.Date(2026, 3, 1, 10, 0, 20, 0, time.UTC)}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	orgA, keyA := testenv.Org(t, s, "ratea", 0)
	_, keyB := testenv.Org(t, s, "rateb", 0)
	if err := s.SetRateLimits(context.Background(), orgA, map[gifting.RateClass]int{gifting.RateLaunch: 3}); err != nil {
		t.Fatal(err)
	}
	a := testenv.NewAPI(t, s, keyA)
	b := a.WithKey(keyB)
	launch := func(api *testenv.API) testenv.Response {
		t.Helper()
		// An unknown campaign: the request is counted before the
		// handler answers 404, and costs nothing else.
		return api.Do("POST", "/api/campaigns/cmp-none/launch", nil)
	}

	for i := 1; i <= 3; i++ {
		res := launch(a)
		if res.Status != http.StatusNotFound {
			t.Fatalf("request %d: status %d, want 404 within the budget; body %s", i, res.Status, res.Body)
		}
		wantLimit := fmt.Sprintf(`"launch";r=%d;t=40`, 3-i)
		if got := res.Header.Get("RateLimit"); got != wantLimit {
			t.Errorf("request %d: RateLimit = %q, want %q", i, got, wantLimit)
		}
		if got := res.Header.Get("RateLimit-Policy"); got != `"launch";q=3;w=60` {
			t.Errorf("request %d: RateLimit-Policy = %q, want the organization's own limit", i, got)
		}
	}

	t.Run("burst over the limit", func(t *testing.T) {
		res := launch(a)
		if res.Status != http.StatusTooManyRequests {
			t.Fatalf("status %d, want 429; body %s", res.Status, res.Body)
		}
		if got := res.Header.Get("Retry-After"); got != "40" {
			t.Errorf("Retry-After = %q, want 40 (seconds to the window's end)", got)
		}
		if got := res.Header.Get("RateLimit"); got != `"launch";r=0;t=40` {
			t.Errorf("RateLimit = %q", got)
		}
		body := res.Map(t)
		if body["code"] != "RATE_LIMITED" || body["statusCode"] != float64(429) || body["message"] != "Too Many Requests" {
			t.Errorf("body %s: want the error shape with RATE_LIMITED", res.Body)
		}
	})
	t.Run("another organization has its own budget", func(t *testing.T) {
		res := launch(b)
		if res.Status != http.StatusNotFound {
			t.Fatalf("status %d, want 404: org B must not pay for org A's burst", res.Status)
		}
		if got := res.Header.Get("RateLimit"); got != `"launch";r=29;t=40` {
			t.Errorf("RateLimit = %q, want the default budget of 30 minus this request", got)
		}
	})
	t.Run("other classes are not counted", func(t *testing.T) {
		res := a.Do("POST", "/api/campaigns/enrichment/enrich", map[string]any{})
		if res.Status == http.StatusTooManyRequests {
			t.Fatalf("enrichment answered 429 after launches: classes must not share a budget")
		}
		if got := res.Header.Get("RateLimit-Policy"); got != `"enrichment";q=120;w=60` {
			t.Errorf("RateLimit-Policy = %q, want enrichment's default", got)
		}
	})
	t.Run("the next window", func(t *testing.T) {
		clk.Advance(40 * time.Second)
		if res := launch(a); res.Status != http.StatusNotFound {
			t.Fatalf("status %d, want 404 once the window has passed", res.Status)
		}
	})
	t.Run("unlimited routes carry no headers", func(t *testing.T) {
		res := a.Do("GET", "/api/campaigns/wallet", nil)
		if res.Status != http.StatusOK || res.Header.Get("RateLimit") != "" {
			t.Errorf("status %d, RateLimit %q: want 200 without rate limit headers", res.Status, res.Header.Get("RateLimit"))
		}
	})
}

// TestRateLimitSpecPace sends bulk adds at the original interface's pace
// (docs/api.md) (a one-second pause between requests, here with no time spent
// on the request itself, the fastest such a client can go) for three minutes:
// none is limited.
func TestRateLimitSpecPace(t *testing.T) {
	t.Parallel()
	clk := &clock{now: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	_, key := testenv.Org(t, s, "pace", 0)
	api := testenv.NewAPI(t, s, key)
	for i := 0; i < 180; i++ {
		res := api.Do("POST", "/api/campaigns/contact-lists/list-none/contacts", map[string]any{"contacts": []any{}})
		if res.Status == http.StatusTooManyRequests {
			t.Fatalf("request %d at one a second answered 429: %s", i+1, res.Body)
		}
		if res.Header.Get("RateLimit-Policy") != `"bulk-add";q=120;w=60` {
			t.Fatalf("request %d: RateLimit-Policy = %q: the route is not rate limited", i+1, res.Header.Get("RateLimit-Policy"))
		}
		clk.Advance(time.Second)
	}
}

func TestSetRateLimits(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "limits", 0)
	ctx := context.Background()
	cases := []struct {
		name   string
		org    string
		limits map[gifting.RateClass]int
		want   gifting.Code
	}{
		{"unknown class", orgID, map[gifting.RateClass]int{"export": 5}, gifting.CodeValidation},
		{"zero", orgID, map[gifting.RateClass]int{gifting.RateLaunch: 0}, gifting.CodeValidation},
		{"unknown organization", "nobody", map[gifting.RateClass]int{gifting.RateLaunch: 5}, gifting.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := gifting.ErrorCode(access.NewApp(s).SetRateLimits(ctx, c.org, c.limits)); got != c.want {
				t.Errorf("error code %s, want %s", got, c.want)
			}
		})
	}
	t.Run("ok", func(t *testing.T) {
		if err := s.SetRateLimits(ctx, orgID, map[gifting.RateClass]int{gifting.RateBulkAdd: 500}); err != nil {
			t.Fatal(err)
		}
		org, err := s.Org(ctx, orgID)
		if err != nil {
			t.Fatal(err)
		}
		if got := org.RateLimit(gifting.RateBulkAdd); got != 500 {
			t.Errorf("bulk-add limit %d, want 500", got)
		}
		if got, want := org.RateLimit(gifting.RateLaunch), gifting.DefaultRateLimits[gifting.RateLaunch]; got != want {
			t.Errorf("launch limit %d, want the default %d", got, want)
		}
	})
}
