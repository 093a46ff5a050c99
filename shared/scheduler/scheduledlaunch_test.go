package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// scheduledDraft creates, in org, a draft over a list of names' addresses
// to be launched in an hour.
func (e *mailEnv) scheduledDraft(orgID string, names ...string) campaign.Campaign {
	e.t.Helper()
	ctx := context.Background()
	l, err := e.store.CreateContactList(ctx, orgID, "user-1", "list", "")
	if err != nil {
		e.t.Fatal(err)
	}
	in := make([]contact.Input, len(names))
	for i, n := range names {
		in[i] = contact.Input{MailID: e.address(n), FirstName: "Jane"}
	}
	if _, err := contact.NewApp(e.store, nil).AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: "test"}); err != nil {
		e.t.Fatal(err)
	}
	at := e.clock.Now().Add(time.Hour)
	c, err := testenv.CreateCampaign(ctx, e.store, orgID, campaign.Campaign{Name: "Scheduled", CreatedBy: "user-1", CampaignData: campaign.Data{
		ContactListID: l.ListID, ContactListIDs: []string{l.ListID}, CreditsPerRecipient: 10,
		GiftIDs: []string{"gift-artisan-coffee"}, EmailTemplateID: "tmpl-meeting-booker", ScheduledAt: &at,
	}})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *mailEnv) campaignOf(orgID, id string) campaign.Campaign {
	e.t.Helper()
	c, err := e.store.Campaign(context.Background(), orgID, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// TestScheduledLaunchByTicksAlone: a draft with scheduledAt launches at
// that time by the scheduler's ticks alone, and its invitations arrive.
func TestScheduledLaunchByTicksAlone(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c := e.scheduledDraft(e.orgID, "ann", "bob")

	e.tick()
	if got := e.campaignOf(e.orgID, c.CampaignID); got.Status != campaign.Draft {
		t.Fatalf("status %s before scheduledAt, want draft", got.Status)
	}
	e.wantSubjects("ann")

	e.clock.Advance(time.Hour)
	e.tick() // launches: credits taken, the launch record due
	e.clock.Advance(dynamo.DueLease)
	e.tick() // no queue here: the tick runs the launch job
	got := e.campaignOf(e.orgID, c.CampaignID)
	if got.Status != campaign.Live || got.TotalRecipients != 2 {
		t.Errorf("status %s with %d recipients, want live with 2", got.Status, got.TotalRecipients)
	}
	e.wantSubjects("ann", invitation)
	e.wantSubjects("bob", invitation)
	if b := e.balance(); b != 10_000-20 {
		t.Errorf("balance %d, want %d (2 recipients × 10 credits)", b, 10_000-20)
	}
	testenv.AssertLedgerBalanced(t, e.store, e.orgID)
}

// TestScheduledLaunchWithoutCredits: a scheduled draft whose launch is
// refused stays a draft with the reason, takes nothing, and is not tried
// again.
func TestScheduledLaunchWithoutCredits(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	orgID, _ := testenv.Org(t, e.store, "poor", 5)
	c := e.scheduledDraft(orgID, "cat")

	e.clock.Advance(time.Hour)
	e.tick()
	got := e.campaignOf(orgID, c.CampaignID)
	if got.Status != campaign.Draft || got.Reason == "" {
		t.Errorf("status %s reason %q, want draft with a reason", got.Status, got.Reason)
	}
	due, err := e.store.DueItems(context.Background(), e.clock.Now().Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range due {
		if d.Ref == c.CampaignID {
			t.Errorf("the refused draft is still due (%s at %v)", d.Kind, d.At)
		}
	}
	e.wantSubjects("cat")
	if b := e.balanceOf(orgID); b != 5 {
		t.Errorf("balance %d, want 5: nothing taken", b)
	}
	testenv.AssertLedgerBalanced(t, e.store, orgID)
}

// TestClearedScheduleDoesNotLaunch: an edit that clears scheduledAt takes
// the draft out of the due index in the same write.
func TestClearedScheduleDoesNotLaunch(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c := e.scheduledDraft(e.orgID, "dan")
	c.CampaignData.ScheduledAt = nil
	edit := campaign.EditPlan{OrgID: e.orgID, Campaign: c, UserID: "user-1", Now: e.store.Now(), Rescheduled: true}
	if _, err := e.store.CommitEdit(context.Background(), edit); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * time.Hour)
	e.tick()
	if got := e.campaignOf(e.orgID, c.CampaignID); got.Status != campaign.Draft || got.Reason != "" {
		t.Errorf("status %s reason %q, want an untouched draft", got.Status, got.Reason)
	}
	if b := e.balance(); b != 10_000 {
		t.Errorf("balance %d, want 10000", b)
	}
}

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
