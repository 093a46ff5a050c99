package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestListSearchLength holds every list endpoint with a free-text search to
// the documented maxLength of 200, counted in characters as JSON Schema
// counts them: 200 two-byte characters are a search, 201 characters (or
// 5,000) are a 400 naming the parameter.
func TestListSearchLength(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 1_000)
	api := testenv.NewAPI(t, s, key)
	campaign := postCampaign(t, api, map[string]any{"name": "Q3"})
	icpID := createPersona(t, api, map[string]any{"name": "Leaders", "job_titles": []string{"CEO"}})
	audience := buildAudience(t, api, map[string]any{"name": "Leaders", "icpId": icpID})

	for _, path := range []string{
		"/api/campaigns/contacts",
		"/api/campaigns/campaigns",
		"/api/campaigns/campaigns/" + campaign.CampaignID + "/recipients",
		"/api/campaigns/audience-lists/" + audience.AudienceID + "/contacts",
	} {
		for _, tt := range []struct {
			name   string
			search string
			status int
		}{
			{"200 characters", strings.Repeat("é", 200), http.StatusOK},
			{"201 characters", strings.Repeat("é", 201), http.StatusBadRequest},
			{"5000 characters", strings.Repeat("x", 5000), http.StatusBadRequest},
		} {
			t.Run(path+"/"+tt.name, func(t *testing.T) {
				res := api.Do("GET", path+"?search="+url.QueryEscape(tt.search), nil)
				if res.Status != tt.status {
					t.Fatalf("status = %d, want %d: %s", res.Status, tt.status, res.Body)
				}
				if tt.status == http.StatusBadRequest {
					assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
					if d, _ := res.Map(t)["details"].(map[string]any); d["search"] == nil {
						t.Errorf("details %v do not name search", d)
					}
				}
			})
		}
	}
}

// TestTypedQueryParametersAreExact: a number, enum or list with spaces
// around it breaks the API document's schema, so the service refuses it
// too (FuzzListQuery found `limit=10%20` answered 200); only the spaces the
// document's list patterns allow after a comma are accepted.
func TestTypedQueryParametersAreExact(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	campaign := postCampaign(t, api, map[string]any{"name": "Q3"})
	recipients := "/api/campaigns/campaigns/" + campaign.CampaignID + "/recipients"
	for _, tt := range []struct {
		name, path string
		status     int
		field      string
	}{
		{"number with a space", "/api/campaigns/contacts?limit=10%20", http.StatusBadRequest, "limit"},
		{"number after a space", "/api/campaigns/gifts?page=%201", http.StatusBadRequest, "page"},
		{"enum with a space", "/api/campaigns/contact-lists?sortOrder=desc%20", http.StatusBadRequest, "sortOrder"},
		{"boolean with a space", "/api/campaigns/campaigns?myCampaigns=true%20", http.StatusBadRequest, "myCampaigns"},
		{"list entry with a space", recipients + "?status=invite_sent%20", http.StatusBadRequest, "status"},
		{"list with a space after a comma", recipients + "?status=invite_sent,%20delivered", http.StatusOK, ""},
		{"exact values", "/api/campaigns/contacts?limit=10&page=1", http.StatusOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("GET", tt.path, nil)
			if res.Status != tt.status {
				t.Fatalf("status = %d, want %d: %s", res.Status, tt.status, res.Body)
			}
			if tt.field != "" {
				if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
					t.Errorf("details %v do not name %s", d, tt.field)
				}
			}
		})
	}
}
