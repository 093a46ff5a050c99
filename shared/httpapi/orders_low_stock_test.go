package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// TestLowStockWebhook: an organization subscribed to gift.low_stock
// hears, signed at its receiver, when a claim takes a size of its hoodie
// down to the threshold it set, naming the size; the next claim of that
// size, below the threshold, sends nothing more.
func TestLowStockWebhook(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t)
	testenv.StreamChanges(t, f.s, f.api.Service)
	rc := newReceiver(t)
	createWebhook(t, f.api, rc.srv.URL, "gift.low_stock")
	res := f.api.Do("POST", "/api/campaigns/gifts", map[string]any{"name": "Hoodie", "price": 30, "currency": "USD",
		"lowStockThreshold": 1, "variants": []map[string]any{
			{"name": "S", "inventory": map[string]any{"total": 9, "available": 9, "reserved": 0}},
			{"name": "L", "inventory": map[string]any{"total": 2, "available": 2, "reserved": 0}}}})
	var g struct {
		Data giftWithVariants `json:"data"`
	}
	res.JSON(t, &g)
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	large := g.Data.Variants[1].VariantID
	c := postCampaign(t, f.api, map[string]any{"name": "Hoodies", "campaignData": map[string]any{
		"giftIds": []string{g.Data.GiftID}, "emailTemplateId": "tmpl-meeting-booker"}})
	testenv.SetCampaignStatus(t, f.s, f.orgID, c.CampaignID, campaign.Live)
	claim := func(email, variant string) {
		t.Helper()
		var added wire.AddedRecipient
		f.api.Do("POST", addPath(c.CampaignID), recipientBody(email, "Ann")).JSON(t, &added)
		if _, err := testenv.Recipients(f.s).Claim(context.Background(), f.orgID, c.CampaignID, added.RecipientID,
			recipient.ClaimInput{GiftID: g.Data.GiftID, VariantID: variant, ShippingAddress: mainStreet}); err != nil {
			t.Fatal(err)
		}
	}
	claim("a@example.com", g.Data.Variants[0].VariantID) // S: 9 → 8, far above
	claim("b@example.com", large)                        // L: 2 → 1, the threshold
	got := rc.wait(t, 1)
	var m struct {
		Type string `json:"type"`
		Data struct {
			GiftID, VariantID    string
			Available, Threshold int
		} `json:"data"`
	}
	if err := json.Unmarshal(got[0].body, &m); err != nil {
		t.Fatal(err)
	}
	if m.Type != "gift.low_stock" || m.Data.GiftID != g.Data.GiftID || m.Data.VariantID != large ||
		m.Data.Available != 1 || m.Data.Threshold != 1 || got[0].sig == "" {
		t.Errorf("delivered %s (signature %q); want gift.low_stock of L at 1", got[0].body, got[0].sig)
	}
	claim("c@example.com", large) // L: 1 → 0, past the threshold already
	time.Sleep(500 * time.Millisecond)
	if n := len(rc.wait(t, 1)); n != 1 {
		t.Errorf("the receiver got %d requests; want the one crossing", n)
	}
}
