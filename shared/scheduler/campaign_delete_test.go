package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestDeletedCampaignRefundsUnclaimedRecipientsByTicks: deleting a live
// campaign leaves its unclaimed recipients unable to claim (their claim
// page answers 410), so the credits held for them must come back. When
// nothing else gives them back, their own expiry does, through the tick,
// exactly once; a recipient who claimed keeps what it was charged.
func TestDeletedCampaignRefundsUnclaimedRecipientsByTicks(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	ann := e.add(c, "ann").Response.RecipientID
	ben := e.add(c, "ben").Response.RecipientID
	dan := e.add(c, "dan").Response.RecipientID
	claimed := testenv.Claim(t, e.store, e.orgID, c.CampaignID, dan)
	start := e.balance()

	if _, err := testenv.Campaigns(e.store).Delete(context.Background(), e.orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(gifting.DefaultClaimExpiresInDays*day + time.Minute)
	e.tick()
	e.clock.Advance(day)
	e.tick()

	for _, id := range []string{ann, ben} {
		if r := e.recipient(c.CampaignID, id); r.Status != gifting.RecipientExpired || r.CreditsCharged != 0 {
			t.Errorf("recipient %s of the deleted campaign is %s holding %d credits; want expired, 0", id, r.Status, r.CreditsCharged)
		}
		if got := e.refunds(id); len(got) != 1 || got[0].Amount != 10 {
			t.Errorf("refunds of %s: %+v; want one of 10 credits", id, got)
		}
	}
	if r := e.recipient(c.CampaignID, dan); r.Status != gifting.RecipientProcessing || r.CreditsCharged != claimed.CreditsCharged {
		t.Errorf("the claimed recipient is %s holding %d; want processing (its order open) holding %d", r.Status, r.CreditsCharged, claimed.CreditsCharged)
	}
	if got := e.balance(); got != start+20 {
		t.Errorf("balance %d; want %d (the 2 unclaimed recipients' 10 credits back)", got, start+20)
	}
	testenv.AssertLedgerBalanced(t, e.store, e.orgID)
}
