package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestContactListsSearch: docs/api.md ("search on every list") makes `search`
// the free-text filter of every list endpoint. GET /contact-lists ignored
// it, so a client searching its lists got every list back as a match.
func TestContactListsSearch(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	for _, l := range []struct{ name, description string }{
		{"Q3 prospects", "Met at the Berlin fair"},
		{"Customers", "Every paying account"},
		{"Berlin partners", "Resellers"},
	} {
		res := api.Do("POST", "/api/campaigns/contact-lists", map[string]any{"name": l.name, "description": l.description})
		if res.Status != http.StatusCreated {
			t.Fatalf("create list: %d %s", res.Status, res.Body)
		}
	}
	for _, tt := range []struct {
		name, query string
		want        []string
		total       int
	}{
		{"name or description", "search=berlin&sortBy=name&sortOrder=asc", []string{"Berlin partners", "Q3 prospects"}, 2},
		{"every word", "search=fair%20BERLIN", []string{"Q3 prospects"}, 1},
		{"no match", "search=vienna", nil, 0},
		{"paged within the matches", "search=berlin&sortBy=name&sortOrder=asc&limit=1&page=2", []string{"Q3 prospects"}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("GET", "/api/campaigns/contact-lists?"+tt.query, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("list: %d %s", res.Status, res.Body)
			}
			var body struct {
				Data struct {
					Items      []gifting.ContactList `json:"items"`
					Pagination gifting.Pagination    `json:"pagination"`
				} `json:"data"`
			}
			res.JSON(t, &body)
			var got []string
			for _, l := range body.Data.Items {
				got = append(got, l.Name)
			}
			if !slices.Equal(got, tt.want) || body.Data.Pagination.Total != tt.total {
				t.Errorf("got %v (total %d), want %v (total %d)", got, body.Data.Pagination.Total, tt.want, tt.total)
			}
		})
	}
	t.Run("search over 200 characters", func(t *testing.T) {
		res := api.Do("GET", "/api/campaigns/contact-lists?search="+strings.Repeat("b", 201), nil)
		assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
		if d, _ := res.Map(t)["details"].(map[string]any); d["search"] == nil {
			t.Errorf("details %v do not name search", d)
		}
	})
}
