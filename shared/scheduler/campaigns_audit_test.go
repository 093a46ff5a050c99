package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// TestRefusedScheduleNotRearmedByAnEdit: a scheduled launch refused for
// too few credits is not tried again until scheduledAt is set again
// (docs/campaigns.md, "Scheduled launch"). Renaming the draft after a top-up must not
// launch it and spend the credits; changing scheduledAt does.
func TestRefusedScheduleNotRearmedByAnEdit(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	ctx := context.Background()
	orgID, _ := testenv.Org(t, e.store, "poor", 5)
	c := e.scheduledDraft(orgID, "eve")

	e.clock.Advance(time.Hour)
	e.tick()
	if got := e.campaignOf(orgID, c.CampaignID); got.Status != campaign.Draft || got.Reason == "" {
		t.Fatalf("status %s reason %q, want a refused draft", got.Status, got.Reason)
	}
	if _, _, err := wallet.NewApp(e.store).TopUp(ctx, orgID, 100, "test"); err != nil {
		t.Fatal(err)
	}
	renamed := "Renamed"
	if _, err := e.svc.Campaigns().Update(ctx, orgID, c.CampaignID, "user-1", campaign.Edit{Name: &renamed}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(dynamo.DueLease)
	e.tick()
	if got := e.campaignOf(orgID, c.CampaignID); got.Status != campaign.Draft {
		t.Errorf("a rename launched the refused draft: status %s", got.Status)
	}
	if b := e.balanceOf(orgID); b != 105 {
		t.Errorf("balance %d, want 105: nothing taken", b)
	}

	// Setting scheduledAt again does schedule it.
	at := e.clock.Now().Add(time.Minute)
	schedule := campaign.Edit{Schedule: &campaign.Schedule{Field: "scheduledAt", At: &at}}
	if _, err := e.svc.Campaigns().Update(ctx, orgID, c.CampaignID, "user-1", schedule); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	e.tick()
	got := e.campaignOf(orgID, c.CampaignID)
	if got.Status == campaign.Draft {
		t.Errorf("a new scheduledAt did not launch: status %s reason %q", got.Status, got.Reason)
	}
	if b, want := e.balanceOf(orgID), 105-got.CampaignData.CreditsPerRecipient; b != want {
		t.Errorf("balance %d, want %d (one recipient's price)", b, want)
	}
	testenv.AssertLedgerBalanced(t, e.store, orgID)
}
