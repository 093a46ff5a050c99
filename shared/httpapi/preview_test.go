package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestPreviewRendersATemplatesEmail: a template's invitation previewed
// for the sample recipient carries the organization's branding and a
// sample gift; with a campaign, its note; an unknown kind, a missing one,
// an email the template lacks, another organization's campaign are
// refused.
func TestPreviewRendersATemplatesEmail(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "preview", 1000)
	_, otherKey := testenv.Org(t, s, "preview-other", 1000)
	api := testenv.NewAPI(t, s, key)
	if res := api.Do("PUT", "/api/campaigns/organization/branding", map[string]any{"displayName": "Acme", "replyTo": "ada@acme.test"}); res.Status != http.StatusOK {
		t.Fatalf("branding: %d %s", res.Status, res.Body)
	}
	type preview struct {
		Data struct{ Email, Subject, HTML, Text, FromName, ReplyTo string }
	}
	get := func(api *testenv.API, query string) (int, preview) {
		res := api.Do("GET", "/api/campaigns/templates/tmpl-meeting-booker/preview"+query, nil)
		var p preview
		if res.Status == http.StatusOK {
			res.JSON(t, &p)
		}
		return res.Status, p
	}
	status, p := get(api, "?email=addressConfirmation")
	if status != http.StatusOK || !strings.Contains(p.Data.Subject, "Grace") || p.Data.FromName != "Acme" || p.Data.ReplyTo != "ada@acme.test" ||
		!strings.Contains(p.Data.HTML, `src="https://gifts.test/assets/gifts/gift-box.png"`) || !strings.Contains(p.Data.Text, "See your gift: https://gifts.test/gift/preview") {
		t.Errorf("preview: %d %+v", status, p.Data)
	}

	campaignID := createCampaign(t, api, 10)
	if res := api.Do("PATCH", "/api/campaigns/"+campaignID, map[string]any{"campaignData": map[string]any{"message": "Cheers, {{firstName}}!"}}); res.Status != http.StatusOK {
		t.Fatalf("set message: %d %s", res.Status, res.Body)
	}
	if status, p := get(api, "?email=reminder1&campaignId="+campaignID); status != http.StatusOK || !strings.Contains(p.Data.HTML, "Cheers, Grace!") ||
		!strings.Contains(p.Data.HTML, "Spring hamper") {
		t.Errorf("campaign preview: %d %s", status, p.Data.HTML)
	}
	// A locale previews the email a recipient with it gets: the catalog
	// template in German, the campaign's note as written.
	if status, p := get(api, "?email=reminder1&locale=de-AT&campaignId="+campaignID); status != http.StatusOK ||
		p.Data.Subject != "Ihr Geschenk wartet auf Sie, Grace" || !strings.Contains(p.Data.HTML, `<html lang="de">`) ||
		!strings.Contains(p.Data.HTML, "Cheers, Grace!") || !strings.Contains(p.Data.Text, "Zu Ihrem Geschenk: https://gifts.test/gift/preview") {
		t.Errorf("German preview: %d %q\n%s", status, p.Data.Subject, p.Data.Text)
	}
	for query, want := range map[string]int{
		"?email=reminder1&locale=nope!": http.StatusBadRequest,
		"":                              http.StatusBadRequest,
		"?email=newsletter":             http.StatusBadRequest,
		"?email=reminder2":              http.StatusOK,
		"?email=shipped":                http.StatusOK, // the service's own words
		"?email=addressConfirmation&campaignId=nope": http.StatusNotFound,
	} {
		if status, _ := get(api, query); status != want {
			t.Errorf("preview%s: %d, want %d", query, status, want)
		}
	}
	if status, _ := get(api.WithKey(otherKey), "?email=addressConfirmation&campaignId="+campaignID); status != http.StatusNotFound {
		t.Errorf("another organization previewed with this one's campaign: %d", status)
	}
	if res := api.Do("GET", "/api/campaigns/templates/nope/preview?email=addressConfirmation", nil); res.Status != http.StatusNotFound {
		t.Errorf("unknown template: %d", res.Status)
	}
}

// TestNotePlaceholdersAreChecked: an unknown placeholder in a campaign's
// message (create or PATCH) or an add-recipient message is a 400 naming
// the field, and nothing is written: no recipient, no credits taken.
func TestNotePlaceholdersAreChecked(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "notes", 1000)
	api := testenv.NewAPI(t, s, key)
	assert400 := func(res testenv.Response, field string) {
		t.Helper()
		var e struct{ Details map[string]string }
		res.JSON(t, &e)
		if res.Status != http.StatusBadRequest || !strings.Contains(e.Details[field], "{{lastName}}") {
			t.Errorf("status %d %s; want 400 naming %s and the placeholder", res.Status, res.Body, field)
		}
	}
	assert400(api.Do("POST", "/api/campaigns", map[string]any{"name": "x", "campaignData": map[string]any{"message": "Hi {{lastName}}"}}), "campaignData.message")
	campaignID := createCampaign(t, api, 10)
	assert400(api.Do("PATCH", "/api/campaigns/"+campaignID, map[string]any{"campaignData": map[string]any{"message": "Hi {{lastName}}"}}), "campaignData.message")
	testenv.SetCampaignStatus(t, s, orgID, campaignID, campaign.Live)
	before := walletOf(t, api, "").Balance
	body := recipientBody("ann@example.com", "Ann")
	body["message"] = "Dear {{lastName}}"
	assert400(api.Do("POST", addPath(campaignID), body), "message")
	if after := walletOf(t, api, "").Balance; after != before {
		t.Errorf("a refused add took %d credits", before-after)
	}
	body["message"], body["senderName"] = "Dear {{firstName}}, from {{senderName}}", "Bob"
	if res := api.Do("POST", addPath(campaignID), body); res.Status != http.StatusOK {
		t.Errorf("add with a note: %d %s", res.Status, res.Body)
	}
}
