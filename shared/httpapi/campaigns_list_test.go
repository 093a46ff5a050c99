package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// campaignClock is a store clock a test moves by hand.
type campaignClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *campaignClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *campaignClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

func campaignNames(cs []campaign.Campaign) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

func TestListCampaigns(t *testing.T) {
	t.Parallel()
	clock := &campaignClock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
	s := testenv.Store(t, dynamo.WithClock(clock.Now))
	orgID, key := testenv.Org(t, s, "acme", 1_000)
	_, keyB := testenv.Org(t, s, "globex", 0)
	key2, _, err := s.CreateAPIKey(context.Background(), orgID, "user-2", "second user")
	if err != nil {
		t.Fatal(err)
	}
	api := testenv.NewAPI(t, s, key)
	api2 := api.WithKey(key2)
	listID, _ := listWithContacts(t, s, orgID, 1)
	_, gifts := campaignCatalogRefs(t)

	// Six campaigns, a day apart; the third is deleted and the fourth
	// launched. Names mix cases to show the name sort ignores case.
	byDay := []struct {
		name  string
		api   *testenv.API
		extra map[string]any
	}{
		{"alpha", api2, nil},
		{"Charlie", api, map[string]any{"description": "renewals"}},
		{"Doomed", api, nil},
		{"bravo", api, map[string]any{"contactListIds": []string{listID}, "campaignData": map[string]any{"giftIds": []string{gifts[1].GiftID}}}},
		{"Delta", api2, nil},
		{"echo", api, nil},
	}
	ids := map[string]string{}
	for i, c := range byDay {
		clock.Set(time.Date(2026, 1, 1+i, 12, 0, 0, 0, time.UTC))
		body := map[string]any{"name": c.name}
		for k, v := range c.extra {
			body[k] = v
		}
		ids[c.name] = postCampaign(t, c.api, body).CampaignID
	}
	if res := api.Do("DELETE", "/api/campaigns/"+ids["Doomed"], nil); res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	clock.Set(time.Date(2026, 1, 7, 12, 0, 0, 0, time.UTC))
	if res := api.Do("POST", "/api/campaigns/"+ids["bravo"]+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	api.Jobs.Wait()

	for _, tt := range []struct {
		name      string
		query     string
		client    *testenv.API
		want      []string
		total     int
		next, prv bool
	}{
		{"defaults: newest first, deleted never", "", api, []string{"echo", "Delta", "bravo", "Charlie", "alpha"}, 5, false, false},
		{"page 2", "?page=2&limit=2", api, []string{"bravo", "Charlie"}, 5, true, true},
		{"last page", "?page=3&limit=2", api, []string{"alpha"}, 5, false, true},
		{"past the end", "?page=9&limit=2", api, []string{}, 5, false, true},
		{"oldest first", "?sortOrder=asc", api, []string{"alpha", "Charlie", "bravo", "Delta", "echo"}, 5, false, false},
		{"oldest first, page 2", "?sortOrder=asc&page=2&limit=3", api, []string{"Delta", "echo"}, 5, false, true},
		{"by name", "?sortBy=name&sortOrder=asc", api, []string{"alpha", "bravo", "Charlie", "Delta", "echo"}, 5, false, false},
		{"by name desc", "?sortBy=name", api, []string{"echo", "Delta", "Charlie", "bravo", "alpha"}, 5, false, false},
		{"by status", "?sortBy=status&sortOrder=asc&limit=1&page=5", api, []string{"bravo"}, 5, false, true},
		{"by updatedAt", "?sortBy=updatedAt&limit=1", api, []string{"bravo"}, 5, true, false},
		{"status", "?status=live", api, []string{"bravo"}, 1, false, false},
		{"status draft", "?status=draft&limit=2", api, []string{"echo", "Delta"}, 4, true, false},
		{"status nobody has", "?status=completed", api, []string{}, 0, false, false},
		{"search name, any case", "?search=ELT", api, []string{"Delta"}, 1, false, false},
		{"search description", "?search=renewal", api, []string{"Charlie"}, 1, false, false},
		{"created from", "?createdFrom=2026-01-04", api, []string{"echo", "Delta", "bravo"}, 3, false, false},
		{"created to a date is the whole day", "?createdTo=2026-01-02", api, []string{"Charlie", "alpha"}, 2, false, false},
		{"created between", "?createdFrom=2026-01-02T00:00:00Z&createdTo=2026-01-04T12:00:00Z", api, []string{"bravo", "Charlie"}, 2, false, false},
		{"my campaigns", "?myCampaigns=true", api2, []string{"Delta", "alpha"}, 2, false, false},
		{"my campaigns, other user", "?myCampaigns=true&sortBy=name&sortOrder=asc", api, []string{"bravo", "Charlie", "echo"}, 3, false, false},
		{"myCampaigns=false is everyone's", "?myCampaigns=false", api2, []string{"echo", "Delta", "bravo", "Charlie", "alpha"}, 5, false, false},
		{"another org sees none", "", api.WithKey(keyB), []string{}, 0, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.client.Do("GET", "/api/campaigns/campaigns"+tt.query, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d, body %s", res.Status, res.Body)
			}
			var p campaignPage
			res.JSON(t, &p)
			if got := campaignNames(p.Campaigns); !slices.Equal(got, tt.want) {
				t.Errorf("campaigns = %v, want %v", got, tt.want)
			}
			pg := p.Pagination
			if pg.Total != tt.total || pg.HasNext != tt.next || pg.HasPrev != tt.prv {
				t.Errorf("pagination = %+v; want total %d, hasNext %v, hasPrev %v", pg, tt.total, tt.next, tt.prv)
			}
		})
	}
	t.Run("default limit is 12", func(t *testing.T) {
		var p campaignPage
		api.Do("GET", "/api/campaigns/campaigns", nil).JSON(t, &p)
		if p.Pagination.Limit != 12 || p.Pagination.Page != 1 || p.Pagination.TotalPages != 1 {
			t.Errorf("pagination = %+v, want page 1, limit 12, 1 page", p.Pagination)
		}
	})
	t.Run("bare shape", func(t *testing.T) {
		m := api.Do("GET", "/api/campaigns/campaigns", nil).Map(t)
		if len(m) != 3 || m["campaigns"] == nil || m["pagination"] == nil || m["nextCursor"] != "" {
			t.Errorf("body keys = %v, want campaigns, pagination and an empty nextCursor (one page) only", m)
		}
	})
	for _, tt := range []struct{ name, query, field string }{
		{"page zero", "page=0", "page"},
		{"limit above 100", "limit=101", "limit"},
		{"unknown status", "status=paused", "status"},
		{"unknown sort", "sortBy=price", "sortBy"},
		{"bad sort order", "sortOrder=up", "sortOrder"},
		{"bad createdFrom", "createdFrom=yesterday", "createdFrom"},
		{"createdFrom with a one-digit hour", "createdFrom=2026-01-04T9:00:00Z", "createdFrom"},
		{"createdTo not a day of the calendar", "createdTo=2026-02-30", "createdTo"},
		{"createdTo before createdFrom", "createdFrom=2026-02-01&createdTo=2026-01-01", "createdTo"},
		{"myCampaigns not boolean", "myCampaigns=yes", "myCampaigns"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("GET", "/api/campaigns/campaigns?"+tt.query, nil)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
}
