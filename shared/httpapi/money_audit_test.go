package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestDeletingACampaignRefundsItsUnclaimedRecipients: a deleted campaign's
// recipients can no longer claim, so DELETE gives back the credits held for
// the unclaimed ones at once, as completing does: the balance is what it
// was before they were added, each has one refund, and a second DELETE
// (404) gives nothing more.
func TestDeletingACampaignRefundsItsUnclaimedRecipients(t *testing.T) {
	t.Parallel()
	for _, status := range []gifting.CampaignStatus{gifting.CampaignDraft, gifting.CampaignLive, gifting.CampaignInProgress} {
		t.Run(string(status), func(t *testing.T) {
			t.Parallel()
			s := testenv.Store(t)
			orgID, key := testenv.Org(t, s, "acme", 1000)
			api := testenv.NewAPI(t, s, key)
			c := postCampaign(t, api, map[string]any{"name": "Doomed", "campaignData": map[string]any{
				"giftIds": []string{"gift-wireless-charger"}, "emailTemplateId": "tmpl-meeting-booker"}})
			if status != gifting.CampaignDraft {
				testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, status)
			}
			price := c.CampaignData.CreditsPerRecipient
			for i := range 3 {
				res := api.Do("POST", addPath(c.CampaignID), recipientBody(fmt.Sprintf("r%d@example.com", i), "R"))
				if res.Status != http.StatusOK {
					t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
				}
			}
			if b := walletBalance(t, s, orgID); b != 1000-3*price {
				t.Fatalf("balance %d after 3 recipients at %d; want %d", b, price, 1000-3*price)
			}

			if res := api.Do("DELETE", "/api/campaigns/"+c.CampaignID, nil); res.Status != http.StatusOK {
				t.Fatalf("delete: %d %s", res.Status, res.Body)
			}
			api.Jobs.Wait()
			if b := walletBalance(t, s, orgID); b != 1000 {
				t.Errorf("balance %d after deleting the campaign; want 1000 (3 × %d held for recipients who can no longer claim)", b, price)
			}
			assertError(t, api.Do("DELETE", "/api/campaigns/"+c.CampaignID, nil), http.StatusNotFound, "NOT_FOUND")
			api.Jobs.Wait()
			refunds := 0
			for _, e := range walletOf(t, api, "?limit=100").Ledger.Items {
				if e.Type == "refund" {
					refunds++
					if e.Amount != price || e.CampaignID != c.CampaignID || e.RecipientID == "" {
						t.Errorf("refund %+v; want %d credits for one recipient of the campaign", e, price)
					}
				}
			}
			if refunds != 3 {
				t.Errorf("%d refunds; want 3, one a recipient", refunds)
			}
			testenv.AssertLedgerBalanced(t, s, orgID)
		})
	}
}
