package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// scheduledDraft creates, in org, a draft over a list of names' addresses
// to be launched in an hour.
func (e *mailEnv) scheduledDraft(orgID string, names ...string) gifting.Campaign {
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
	c, err := e.store.CreateCampaign(ctx, orgID, gifting.Campaign{Name: "Scheduled", CreatedBy: "user-1", CampaignData: gifting.CampaignData{
		ContactListID: l.ListID, ContactListIDs: []string{l.ListID}, CreditsPerRecipient: 10,
		GiftIDs: []string{"gift-artisan-coffee"}, EmailTemplateID: "tmpl-meeting-booker", ScheduledAt: &at,
	}})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func (e *mailEnv) campaignOf(orgID, id string) gifting.Campaign {
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
	if got := e.campaignOf(e.orgID, c.CampaignID); got.Status != gifting.CampaignDraft {
		t.Fatalf("status %s before scheduledAt, want draft", got.Status)
	}
	e.wantSubjects("ann")

	e.clock.Advance(time.Hour)
	e.tick() // launches: credits taken, the launch record due
	e.clock.Advance(dynamo.DueLease)
	e.tick() // no queue here: the tick runs the launch job
	got := e.campaignOf(e.orgID, c.CampaignID)
	if got.Status != gifting.CampaignLive || got.TotalRecipients != 2 {
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
	if got.Status != gifting.CampaignDraft || got.Reason == "" {
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
	if _, err := e.store.UpdateCampaign(context.Background(), e.orgID, c, "user-1", true, false); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2 * time.Hour)
	e.tick()
	if got := e.campaignOf(e.orgID, c.CampaignID); got.Status != gifting.CampaignDraft || got.Reason != "" {
		t.Errorf("status %s reason %q, want an untouched draft", got.Status, got.Reason)
	}
	if b := e.balance(); b != 10_000 {
		t.Errorf("balance %d, want 10000", b)
	}
}
