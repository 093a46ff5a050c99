package httpapi_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// TestLastUnitClaimedTwiceOpensOneOrder: two recipients claim the last
// unit of a gift at once; the stock's condition lets exactly one win. The
// winner has the one open order and the unit reserved; the other is a 409
// naming giftId, with no order and nothing reserved for it.
func TestLastUnitClaimedTwiceOpensOneOrder(t *testing.T) {
	t.Parallel()
	for round := range 5 {
		f := newOrderFixture(t)
		body := newGift("Last one", 35)
		body["inventory"] = map[string]any{"total": 1, "available": 1, "reserved": 0}
		res := f.api.Do("POST", "/api/campaigns/gifts", body)
		var g struct {
			Data gifting.Gift `json:"data"`
		}
		res.JSON(t, &g)
		c := postCampaign(t, f.api, map[string]any{"name": "Scarce", "campaignData": map[string]any{
			"giftIds": []string{g.Data.GiftID}, "emailTemplateId": "tmpl-meeting-booker"}})
		testenv.SetCampaignStatus(t, f.s, f.orgID, c.CampaignID, campaign.Live)
		var ids []string
		for _, e := range []string{"a@example.com", "b@example.com"} {
			var added wire.AddedRecipient
			f.api.Do("POST", addPath(c.CampaignID), recipientBody(e, "Ann")).JSON(t, &added)
			ids = append(ids, added.RecipientID)
		}
		errs := make([]error, 2)
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Go(func() {
				_, errs[i] = testenv.Recipients(f.s).Claim(context.Background(), f.orgID, c.CampaignID, id,
					recipient.ClaimInput{GiftID: g.Data.GiftID, ShippingAddress: mainStreet})
			})
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case gifting.ErrorCode(err) != gifting.CodeConflict:
				t.Errorf("round %d: the losing claim: %v; want a CONFLICT naming giftId", round, err)
			}
		}
		open := f.orders(t, "?status=open&campaignId="+c.CampaignID)
		st, err := f.s.Stock(context.Background(), f.orgID, g.Data.GiftID, "")
		if err != nil {
			t.Fatal(err)
		}
		if won != 1 || len(open.Data.Items) != 1 || st.Available != 0 || st.Reserved != 1 {
			t.Errorf("round %d: %d claims won, %d open orders, stock %+v; want one of each and the unit reserved", round, won,
				len(open.Data.Items), st)
		}
		if res := f.api.Do("GET", "/api/campaigns/orders/"+open.Data.Items[0].OrderID, nil); res.Status != http.StatusOK {
			t.Errorf("round %d: the winner's order: %d", round, res.Status)
		}
	}
}
