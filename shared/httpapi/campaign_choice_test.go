package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestCampaignChoice: campaignData.choice is set on create, shown, taken
// away by an empty collectionId, and a collection id that is not one line
// of at most 100 characters is a 400 naming it, with nothing changed.
func TestCampaignChoice(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 1000)
	api := testenv.NewAPI(t, s, key)
	c := postCampaign(t, api, map[string]any{"name": "Your pick", "campaignData": map[string]any{"choice": map[string]any{"collectionId": "treats"}}})
	choice := func() string {
		t.Helper()
		var env struct {
			Data struct {
				CampaignData struct {
					Choice *struct {
						CollectionID string `json:"collectionId"`
					} `json:"choice"`
				} `json:"campaignData"`
			} `json:"data"`
		}
		api.Do("GET", "/api/campaigns/"+c.CampaignID, nil).JSON(t, &env)
		if ch := env.Data.CampaignData.Choice; ch != nil {
			return ch.CollectionID
		}
		return ""
	}
	if got := choice(); got != "treats" {
		t.Fatalf("choice after create: %q, want treats", got)
	}
	for _, bad := range []string{strings.Repeat("x", 101), "two\nlines"} {
		res := api.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{"campaignData": map[string]any{"choice": map[string]any{"collectionId": bad}}})
		if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "campaignData.choice.collectionId") {
			t.Errorf("choice %q: %d %s, want 400 naming campaignData.choice.collectionId", bad, res.Status, res.Body)
		}
	}
	if got := choice(); got != "treats" {
		t.Errorf("a refused edit changed the choice to %q", got)
	}
	res := api.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{"campaignData": map[string]any{"choice": map[string]any{"collectionId": ""}}})
	if res.Status != http.StatusOK || choice() != "" {
		t.Errorf("taking the swap away: %d %s", res.Status, res.Body)
	}
}
