package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestCampaignSearchMatchesEveryWord: the campaign list's search keeps a
// campaign holding every word of the search, in any order and with any
// spacing (docs/api.md, "Search parameter"), not only the exact phrase.
func TestCampaignSearchMatchesEveryWord(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	postCampaign(t, api, map[string]any{"name": "Gifts for spring", "description": "Q2 outreach"})
	postCampaign(t, api, map[string]any{"name": "Winter  party", "description": "year end"})
	postCampaign(t, api, map[string]any{"name": "Spring dinner"})

	for _, tt := range []struct {
		name, search string
		want         []string
	}{
		{"words in another order", "spring gifts", []string{"Gifts for spring"}},
		{"name and description words", "outreach GIFTS", []string{"Gifts for spring"}},
		{"single space against a double one", "winter party", []string{"Winter  party"}},
		{"one word in several", "spring", []string{"Spring dinner", "Gifts for spring"}},
		{"a word nobody has", "spring autumn", []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var p campaignPage
			res := api.Do("GET", "/api/campaigns/campaigns?search="+strings.ReplaceAll(tt.search, " ", "%20"), nil)
			res.JSON(t, &p)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			if got := campaignNames(p.Campaigns); !slices.Equal(got, tt.want) || p.Pagination.Total != len(tt.want) {
				t.Errorf("search %q found %v (total %d), want %v", tt.search, got, p.Pagination.Total, tt.want)
			}
		})
	}
}

// TestRecipientSearchMatchesEveryWord: the recipient lists' search on
// first and last name keeps a recipient holding every word, in any order
// ("smith john" finds John Smith), and pagination counts just those.
func TestRecipientSearchMatchesEveryWord(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1_000)
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 1)
	for _, p := range [][3]string{{"john@x.com", "John", "Smith"}, {"ann@x.com", "Ann", "Smith"}, {"johnny@x.com", "Johnny", "Jones"}} {
		res := api.Do("POST", addPath(campaignID), map[string]any{"contactDetails": map[string]any{"email": p[0], "firstName": p[1], "lastName": p[2]}})
		if res.Status != http.StatusOK {
			t.Fatalf("add %s: %d %s", p[0], res.Status, res.Body)
		}
	}
	for _, tt := range []struct {
		name, search string
		want         []string
	}{
		{"first then last", "john smith", []string{"John"}},
		{"last then first", "smith john", []string{"John"}},
		{"two spaces", "john  smith", []string{"John"}},
		{"one word", "smith", []string{"Ann", "John"}},
		{"a word nobody has", "smith zed", []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var page struct {
				Recipients []gifting.Recipient `json:"recipients"`
				Pagination gifting.Pagination  `json:"pagination"`
			}
			res := api.Do("GET", "/api/campaigns/campaigns/"+campaignID+"/recipients?sortBy=firstName&sortOrder=asc&search="+strings.ReplaceAll(tt.search, " ", "%20"), nil)
			res.JSON(t, &page)
			if res.Status != http.StatusOK {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			got := []string{}
			for _, r := range page.Recipients {
				got = append(got, r.ContactDetails.FirstName)
			}
			if !slices.Equal(got, tt.want) || page.Pagination.Total != len(tt.want) {
				t.Errorf("search %q found %v (total %d), want %v", tt.search, got, page.Pagination.Total, tt.want)
			}
		})
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}

// TestRecipientOfDeletedCampaignIsGone: once a campaign is deleted, its
// recipients are 404 by id too, as its lists, metrics and feedback are;
// the recipient's personal data is not served for a campaign the tenant
// removed.
func TestRecipientOfDeletedCampaignIsGone(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1_000)
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 1)
	var added struct {
		RecipientID string `json:"recipientId"`
	}
	res := api.Do("POST", addPath(campaignID), recipientBody("gone@x.com", "Gone"))
	res.JSON(t, &added)
	if res.Status != http.StatusOK {
		t.Fatalf("add: %d %s", res.Status, res.Body)
	}
	path := "/api/campaigns/campaigns/" + campaignID + "/recipients/" + added.RecipientID
	if res := api.Do("GET", path, nil); res.Status != http.StatusOK {
		t.Fatalf("before the delete: %d %s", res.Status, res.Body)
	}
	if res := api.Do("DELETE", "/api/campaigns/"+campaignID, nil); res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	api.Jobs.Wait()
	res = api.Do("GET", path, nil)
	assertError(t, res, http.StatusNotFound, "NOT_FOUND")
	if strings.Contains(string(res.Body), "gone@x.com") {
		t.Errorf("the deleted campaign's recipient's email is in the answer: %s", res.Body)
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}

// TestDateQueryWithAnUnencodedPlus: a time zone offset sent as "+01:00"
// without encoding arrives as a space; the error says how to send it
// rather than only repeating the format the caller believes they used.
func TestDateQueryWithAnUnencodedPlus(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	res := api.Do("GET", "/api/campaigns/campaigns?createdFrom=2026-01-04T09:00:00+01:00", nil)
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	d, _ := res.Map(t)["details"].(map[string]any)
	if msg, _ := d["createdFrom"].(string); !strings.Contains(msg, "%2B") {
		t.Errorf("createdFrom problem %q does not say to send + as %%2B", msg)
	}
	var p campaignPage
	res = api.Do("GET", "/api/campaigns/campaigns?createdFrom=2026-01-04T09:00:00%2B01:00", nil)
	res.JSON(t, &p)
	if res.Status != http.StatusOK {
		t.Errorf("encoded offset: %d %s", res.Status, res.Body)
	}
}

// TestRecipientStatusMovesIntoAndOutOfExpired: the status endpoint
// refuses a move to expired, and any move of an expired recipient, with a
// 409 that says why (expiry happens by itself; expired is final), not the
// forward-only rule, which the caller's move did follow.
func TestRecipientStatusMovesIntoAndOutOfExpired(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1_000)
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 1)
	var added struct {
		RecipientID string `json:"recipientId"`
	}
	for _, email := range []string{"stays@x.com", "expires@x.com"} {
		res := api.Do("POST", addPath(campaignID), recipientBody(email, "Jo"))
		res.JSON(t, &added)
		if res.Status != http.StatusOK {
			t.Fatalf("add: %d %s", res.Status, res.Body)
		}
	}
	status := func(recipientID string) string {
		return "/api/campaigns/campaigns/" + campaignID + "/recipients/" + recipientID + "/status"
	}
	var first struct {
		Recipients []gifting.Recipient `json:"recipients"`
	}
	api.Do("GET", "/api/campaigns/campaigns/"+campaignID+"/recipients?sortOrder=asc", nil).JSON(t, &first)
	stays := first.Recipients[0].RecipientID

	res := api.Do("POST", status(stays), map[string]any{"status": "expired"})
	assertError(t, res, http.StatusConflict, "CONFLICT")
	if msg, _ := res.Map(t)["error"].(string); !strings.Contains(msg, "expires by itself") {
		t.Errorf("move to expired: %q does not say that expiry happens by itself", msg)
	}

	// Completing the campaign expires its unclaimed recipients.
	testenv.SetCampaignStatus(t, s, orgID, campaignID, campaign.Live)
	if res := api.Do("POST", "/api/campaigns/"+campaignID+"/complete", nil); res.Status != http.StatusOK {
		t.Fatalf("complete: %d %s", res.Status, res.Body)
	}
	api.Jobs.Wait()
	for _, to := range []string{"invite_sent", "shipped", "acknowledged"} {
		res := api.Do("POST", status(added.RecipientID), map[string]any{"status": to})
		assertError(t, res, http.StatusConflict, "CONFLICT")
		if msg, _ := res.Map(t)["error"].(string); !strings.Contains(msg, "has expired") {
			t.Errorf("expired → %s: %q does not say the recipient has expired", to, msg)
		}
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}
