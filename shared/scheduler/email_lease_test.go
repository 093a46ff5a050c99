package scheduler_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// sentTo counts the emails the emulator received for each of this test's
// addresses, by address, with one read of its store.
func (e *mailEnv) sentTo() map[string]int {
	e.t.Helper()
	n := map[string]int{}
	for _, m := range localstack.ReadEmails(e.t, e.endpoint) {
		for _, to := range m.Destination.To {
			if strings.Contains(to, e.tag) {
				n[strings.ToLower(to)]++
			}
		}
	}
	return n
}

// TestClaimedEmailGoesOutAfterItsLease: a sender that claimed an email and
// died before sending it leaves it claimed; while its lease runs no tick
// sends it, once the lease is over the tick sends it, once.
func TestClaimedEmailGoesOutAfterItsLease(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	res := e.add(c, "crash")
	e.clock.Advance(72 * time.Hour)
	if _, err := testenv.Recipients(e.store).ClaimEmail(ctx, e.orgID, c.CampaignID, res.Response.RecipientID, "reminder1"); err != nil {
		t.Fatal(err)
	}
	// The process dies here.
	e.clock.Advance(recipient.EmailLease - time.Second)
	e.tick()
	e.wantSubjects("crash", invitation)
	e.clock.Advance(time.Second)
	e.tick()
	e.wantSubjects("crash", invitation, reminder1)
	for range 3 {
		e.clock.Advance(recipient.EmailLease)
		e.tick()
	}
	e.wantSubjects("crash", invitation, reminder1)
	r := e.recipient(c.CampaignID, res.Response.RecipientID)
	if r1 := r.Emails.Reminder1; !r1.Sent || r1.Attempts != 1 || r1.MessageID == "" {
		t.Errorf("reminder1 sent %v, attempts %d, message %q; want sent, the lost attempt counted", r1.Sent, r1.Attempts, r1.MessageID)
	}
}

// TestInvitationOfAStoppedAddRecipient: an add-recipient whose process
// stopped between writing the recipient (its invitation claimed) and
// sending the invitation leaves the recipient pending; the invitation goes
// out after its lease, exactly once, and only then is the recipient
// invite_sent.
func TestInvitationOfAStoppedAddRecipient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	// The store's write alone: the use case's send never happens.
	res, err := testenv.Recipients(e.store).Write(ctx, recipient.AddInput{
		OrgID: e.orgID, CampaignID: c.CampaignID, SourceType: "api", PublicBaseURL: "https://gifts.test", Invite: true,
		Contact: gifting.ContactInput{MailID: e.address("stopped"), FirstName: "Jane"},
	})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Response.RecipientID
	assertStatus := func(want gifting.RecipientStatus) {
		t.Helper()
		r := e.recipient(c.CampaignID, id)
		got, err := e.store.Campaign(ctx, e.orgID, c.CampaignID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != want || got.LiveData.StatusCounts[want] != 1 || got.TotalRecipients != 1 {
			t.Errorf("recipient %s, campaign counts %v; want %s, counted so", r.Status, got.LiveData.StatusCounts, want)
		}
	}
	assertStatus(gifting.RecipientPending)
	e.clock.Advance(time.Minute)
	e.tick()
	e.wantSubjects("stopped")
	e.clock.Advance(recipient.EmailLease)
	e.tick()
	e.wantSubjects("stopped", invitation)
	assertStatus(gifting.RecipientInviteSent)
	e.clock.Advance(recipient.EmailLease)
	e.tick()
	e.wantSubjects("stopped", invitation)
}

// TestLaunchInvitationsOfAStoppedSlice: a launch slice whose process
// stopped right after the transaction that counted its recipients, before
// it sent a single invitation: every invitation goes out after its lease,
// exactly once, and the campaign counts every recipient invite_sent.
func TestLaunchInvitationsOfAStoppedSlice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	if _, err := seed.SeedCatalog(ctx, e.store); err != nil {
		t.Fatal(err)
	}
	const n = 30
	l, err := e.store.CreateContactList(ctx, e.orgID, "user-1", "list", "")
	if err != nil {
		t.Fatal(err)
	}
	in := make([]contact.Input, n)
	for i := range in {
		in[i] = contact.Input{MailID: e.address(fmt.Sprint("c", i)), FirstName: "Jane"}
	}
	if _, err := contact.NewApp(e.store, nil).AddToList(ctx, e.orgID, l.ListID, in, contact.Source{Type: "test"}); err != nil {
		t.Fatal(err)
	}
	c, err := testenv.CreateCampaign(ctx, e.store, e.orgID, campaign.Campaign{Name: "Spring", CreatedBy: "user-1", CampaignData: campaign.Data{
		ContactListIDs: []string{l.ListID}, GiftIDs: []string{"gift-artisan-coffee"}, EmailTemplateID: "tmpl-meeting-booker", CreditsPerRecipient: 10,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.LaunchCampaign(ctx, e.store, e.orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	handed := 0
	// The process dies before its first send: the sender is handed every
	// invitation and sends none.
	died := testenv.Inviter(func(context.Context, string, recipient.Invitation) bool { handed++; return false })
	if _, done, err := testenv.Campaigns(e.store, died).LaunchSlice(ctx, e.orgID, c.CampaignID, ""); err != nil || done {
		t.Fatalf("slice: done %v, %v", done, err)
	}
	if handed != n {
		t.Fatalf("%d invitations handed to the sender, want %d", handed, n)
	}
	// The tick finishes the launch; the invitations wait for their lease.
	e.clock.Advance(dynamo.DueLease + time.Second)
	e.tick()
	if got := e.sentTo(); len(got) != 0 {
		t.Fatalf("%d invitations sent during their claims' lease", len(got))
	}
	for range 3 {
		e.clock.Advance(recipient.EmailLease)
		e.tick()
	}
	got := e.sentTo()
	for i := range n {
		if k := got[e.address(fmt.Sprint("c", i))]; k != 1 {
			t.Errorf("contact %d received %d invitations, want 1", i, k)
		}
	}
	camp, err := e.store.Campaign(ctx, e.orgID, c.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	if counts := camp.LiveData.StatusCounts; camp.Status != campaign.Live || camp.TotalRecipients != n ||
		counts[gifting.RecipientInviteSent] != n || counts[gifting.RecipientPending] != 0 {
		t.Errorf("campaign %s with %d recipients, counts %v; want live, %d invite_sent", camp.Status, camp.TotalRecipients, counts, n)
	}
}
