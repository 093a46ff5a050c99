package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// assertFieldRefused checks a 400 VALIDATION_FAILED whose details name
// field.
func assertFieldRefused(t *testing.T, res testenv.Response, field string) {
	t.Helper()
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	details, _ := res.Map(t)["details"].(map[string]any)
	if details[field] == nil {
		t.Errorf("details = %v; want a problem with %s", details, field)
	}
}

// TestDefectCreditsMintedByOverflow replays issue 11's first reproduction:
// an org with 1,000 credits prices a gift so high that contacts × price
// wraps around int64, and its launch would add credits instead of taking
// them. Every step that leads there must be refused, and whatever got
// through must leave the balance at most what it was, with a ledger that
// adds up.
func TestDefectCreditsMintedByOverflow(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		price any
	}{
		{"price wraps contacts × price", int64(4_700_000_000_000_000_000)},
		{"price beyond int64", 1e20},
		{"just above the bound", gifting.MaxGiftPrice + 0.01},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := testenv.Store(t)
			orgID, key := testenv.Org(t, s, "acme", 1000)
			api := testenv.NewAPI(t, s, key)
			listID, _ := listWithContacts(t, s, orgID, 2)

			gift := newGift("Gold bar", 0)
			gift["price"] = tt.price
			res := api.Do("POST", "/api/campaigns/gifts", gift)
			if res.Status == http.StatusCreated {
				// The code before the fix stored it: play the rest of the
				// reproduction, which is what must never mint credits.
				var g struct {
					Data gifting.Gift `json:"data"`
				}
				res.JSON(t, &g)
				c := launchReady(t, api, g.Data, listID)
				launch := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
				api.Jobs.Wait()
				t.Errorf("gift priced %v accepted; launch answered %d %s", tt.price, launch.Status, launch.Body)
			} else {
				assertFieldRefused(t, res, "price")
			}
			if b := walletBalance(t, s, orgID); b > 1000 || b < 0 {
				t.Errorf("balance = %d; credits were minted (or went negative) from 1000", b)
			}
			testenv.AssertLedgerBalanced(t, s, orgID)
		})
	}

	t.Run("the highest price launches exactly", func(t *testing.T) {
		t.Parallel()
		s := testenv.Store(t)
		const contacts = 3
		orgID, key := testenv.Org(t, s, "acme", contacts*gifting.MaxGiftPrice+7)
		api := testenv.NewAPI(t, s, key)
		listID, _ := listWithContacts(t, s, orgID, contacts)
		res := api.Do("POST", "/api/campaigns/gifts", newGift("Yacht", gifting.MaxGiftPrice))
		if res.Status != http.StatusCreated {
			t.Fatalf("gift at the bound: %d %s", res.Status, res.Body)
		}
		var g struct {
			Data gifting.Gift `json:"data"`
		}
		res.JSON(t, &g)
		c := launchReady(t, api, g.Data, listID)
		res = api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
		if res.Status != http.StatusAccepted {
			t.Fatalf("launch: %d %s", res.Status, res.Body)
		}
		var l launchEnvelope
		res.JSON(t, &l)
		api.Jobs.Wait()
		if l.Data.CreditsDeducted != contacts*gifting.MaxGiftPrice || l.Data.RemainingBalance != 7 {
			t.Errorf("launch = %+v; want %d deducted, 7 left", l.Data, contacts*gifting.MaxGiftPrice)
		}
		if b := walletBalance(t, s, orgID); b != 7 {
			t.Errorf("balance = %d, want 7", b)
		}
		testenv.AssertLedgerBalanced(t, s, orgID)
	})
}

// TestDefectFreeCatalogGifts replays issue 11's second reproduction: a
// campaign of a service-catalog gift priced at 0 credits a recipient gave
// the gift away. A campaign's own price may not go below the catalog price
// of its catalog gifts, at create, at PATCH, and for a campaign stored
// under-priced before the rule existed.
func TestDefectFreeCatalogGifts(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1000)
	api := testenv.NewAPI(t, s, key)
	const charger, charge = "gift-wireless-charger", 55 // the catalog's 55 USD gift
	const field = "campaignData.creditsPerRecipient"

	priced := func(price int64, gifts ...string) map[string]any {
		return map[string]any{"name": "Free stuff", "campaignData": map[string]any{
			"giftIds": gifts, "emailTemplateId": "tmpl-meeting-booker", "creditsPerRecipient": price}}
	}
	t.Run("create below the catalog price", func(t *testing.T) {
		res := api.Do("POST", "/api/campaigns", priced(0, charger))
		if res.Status == http.StatusCreated {
			// The code before the fix: show what the reproduction did.
			var env campaignEnvelope
			res.JSON(t, &env)
			add := api.Do("POST", addPath(env.Data.CampaignID), recipientBody("free@example.com", "Free"))
			t.Fatalf("campaign of a %d USD catalog gift at 0 credits accepted; add-recipient answered %d %s", charge, add.Status, add.Body)
		}
		assertFieldRefused(t, res, field)
		assertFieldRefused(t, api.Do("POST", "/api/campaigns", priced(charge-1, charger)), field)
		assertFieldRefused(t, api.Do("POST", "/api/campaigns", priced(charge, charger, "gift-noise-cancelling-headphones")), field)
	})

	t.Run("the catalog price or more is accepted", func(t *testing.T) {
		c := postCampaign(t, api, priced(charge, charger))
		if c.CampaignData.CreditsPerRecipient != charge || !c.CampaignData.PriceSet {
			t.Errorf("creditsPerRecipient = %d (set %v), want %d set", c.CampaignData.CreditsPerRecipient, c.CampaignData.PriceSet, charge)
		}
		res := api.Do("POST", addPath(c.CampaignID), recipientBody("paid@example.com", "Paid"))
		var added gifting.AddedRecipient
		res.JSON(t, &added)
		if res.Status != http.StatusOK || added.CreditsDeducted != charge || added.RemainingBalance != 1000-charge {
			t.Errorf("add-recipient = %d %s; want %d credits deducted", res.Status, res.Body, charge)
		}
	})

	t.Run("PATCH below the catalog price", func(t *testing.T) {
		c := postCampaign(t, api, map[string]any{"name": "Edited", "campaignData": map[string]any{"giftIds": []string{charger}}})
		assertFieldRefused(t, api.Do("PATCH", "/api/campaigns/"+c.CampaignID,
			map[string]any{"campaignData": map[string]any{"creditsPerRecipient": 0}}), field)

		// A campaign priced on its own, then given a catalog gift.
		own := postCampaign(t, api, map[string]any{"name": "Own price", "campaignData": map[string]any{"creditsPerRecipient": 1}})
		assertFieldRefused(t, api.Do("PATCH", "/api/campaigns/"+own.CampaignID,
			map[string]any{"campaignData": map[string]any{"giftIds": []string{charger}}}), field)
		if got := fetchCampaign(t, api, own.CampaignID); len(got.CampaignData.GiftIDs) != 0 || got.CampaignData.CreditsPerRecipient != 1 {
			t.Errorf("refused PATCH changed the campaign: %+v", got.CampaignData)
		}
	})

	t.Run("an organization's own gift may be free", func(t *testing.T) {
		res := api.Do("POST", "/api/campaigns/gifts", newGift("Sticker", 3))
		var g struct {
			Data gifting.Gift `json:"data"`
		}
		res.JSON(t, &g)
		c := postCampaign(t, api, priced(0, g.Data.GiftID))
		if c.CampaignData.CreditsPerRecipient != 0 {
			t.Errorf("creditsPerRecipient = %d, want 0", c.CampaignData.CreditsPerRecipient)
		}
	})

	t.Run("a campaign stored under-priced takes no recipient", func(t *testing.T) {
		// As a campaign created before the rule was stored.
		c, err := testenv.CreateCampaign(context.Background(), s, orgID, campaign.Campaign{Name: "Legacy", CreatedBy: "user-acme",
			CampaignData: campaign.Data{GiftIDs: []string{charger}, EmailTemplateID: "tmpl-meeting-booker", PriceSet: true}})
		if err != nil {
			t.Fatal(err)
		}
		before := walletBalance(t, s, orgID)
		res := api.Do("POST", addPath(c.CampaignID), recipientBody("legacy@example.com", "Legacy"))
		assertError(t, res, http.StatusConflict, "CONFLICT")
		if b := walletBalance(t, s, orgID); b != before {
			t.Errorf("balance %d → %d on a refused add-recipient", before, b)
		}
	})
	testenv.AssertLedgerBalanced(t, s, orgID)
}
