package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestEmptyFilterParametersAreRefused: docs/api.md ("a documented one that is
// present must have a value") refuses `?limit=`; the text filters listed
// everything instead when sent empty, so `?userId=` (a client's variable
// left unset) answered every recipient as that user's and `?collectionId=`
// every gift as the collection's.
func TestEmptyFilterParametersAreRefused(t *testing.T) {
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
		{"recipients userId empty", recipients + "?userId=", http.StatusBadRequest, "userId"},
		{"recipients userId blank", recipients + "?userId=%20", http.StatusBadRequest, "userId"},
		{"gifts collectionId empty", "/api/campaigns/gifts?collectionId=", http.StatusBadRequest, "collectionId"},
		{"templates templateCategory empty", "/api/campaigns/templates?templateCategory=", http.StatusBadRequest, "templateCategory"},
		{"audience lists icpId empty", "/api/campaigns/audience-lists?icpId=", http.StatusBadRequest, "icpId"},
		{"recipients userId set", recipients + "?userId=user-acme", http.StatusOK, ""},
		{"gifts collectionId set", "/api/campaigns/gifts?collectionId=tech", http.StatusOK, ""},
		{"an empty search still lists everything", "/api/campaigns/gifts?search=", http.StatusOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("GET", tt.path, nil)
			if res.Status != tt.status {
				t.Fatalf("status = %d, want %d: %s", res.Status, tt.status, res.Body)
			}
			if tt.field != "" {
				assertError(t, res, tt.status, "VALIDATION_FAILED")
				if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
					t.Errorf("details %v do not name %s", d, tt.field)
				}
			}
		})
	}
}
