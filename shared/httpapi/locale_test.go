package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// TestContactLocale: add-recipient's contactDetails.locale is stored on
// the contact and carried by the recipient in canonical BCP 47 form; a
// locale that is not a language tag is a 400 naming the field, with
// nothing written (no credits taken); PATCH changes and checks it as well.
func TestContactLocale(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 100)
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 10)
	testenv.SetCampaignStatus(t, s, "acme", campaignID, campaign.Live)

	body := func(email, locale string) map[string]any {
		return map[string]any{"contactDetails": map[string]any{"email": email, "firstName": "Lena", "locale": locale}}
	}
	res := api.Do("POST", addPath(campaignID), body("lena@example.com", "de-at"))
	if res.Status != http.StatusOK {
		t.Fatalf("add-recipient with a locale: %d %s", res.Status, res.Body)
	}
	added := res.Map(t)
	var rec struct {
		Data wire.Recipient `json:"data"`
	}
	api.Do("GET", "/api/campaigns/campaigns/"+campaignID+"/recipients/"+added["recipientId"].(string), nil).JSON(t, &rec)
	if got := rec.Data.ContactDetails.Locale; got != "de-AT" {
		t.Errorf("the recipient's locale is %q, want de-AT", got)
	}
	contactPath := "/api/campaigns/contacts/" + added["contactId"].(string)
	if got := api.Do("GET", contactPath, nil).Map(t)["data"].(map[string]any)["locale"]; got != "de-AT" {
		t.Errorf("the contact's locale is %v, want de-AT", got)
	}

	balance := walletOf(t, api, "").Balance
	for _, bad := range []string{"not a locale", "deutsch!", "de_DE_x_y_zzzzzzzzzzzzzz"} {
		res := api.Do("POST", addPath(campaignID), body("kim@example.com", bad))
		assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
		if d, _ := res.Map(t)["details"].(map[string]any); d["contactDetails.locale"] == nil {
			t.Errorf("locale %q: details %v do not name contactDetails.locale", bad, d)
		}
	}
	if w := walletOf(t, api, ""); w.Balance != balance {
		t.Errorf("balance %d after refused adds, want %d", w.Balance, balance)
	}

	if res := api.Do("PATCH", contactPath, map[string]any{"locale": "fr-CA"}); res.Status != http.StatusOK ||
		res.Map(t)["data"].(map[string]any)["locale"] != "fr-CA" {
		t.Errorf("PATCH locale: %d %s", res.Status, res.Body)
	}
	res = api.Do("PATCH", contactPath, map[string]any{"locale": "??"})
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	if d, _ := res.Map(t)["details"].(map[string]any); d["locale"] == nil {
		t.Errorf("PATCH with a bad locale: details %v do not name locale", d)
	}
}
