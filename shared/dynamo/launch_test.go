package dynamo_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// editBeforeLaunchDB runs edit once, just before the first transaction
// that writes a launch record: an edit racing the launch.
type editBeforeLaunchDB struct {
	dynamo.DB
	once sync.Once
	edit func()
}

func (d *editBeforeLaunchDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		if it.Put != nil && strings.HasPrefix(fmt.Sprint(it.Put.Item["SK"]), "&{LAUNCH#") {
			d.once.Do(d.edit)
		}
	}
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

// launchFixture is an org with credits, a list of n contacts and a draft
// campaign over it priced at 10 credits.
func launchFixture(t *testing.T, s *dynamo.Store, n int) (orgID string, c campaign.Campaign) {
	t.Helper()
	return launchFixtureOf(t, s, "acme", n, "")
}

// launchFixtureOf is launchFixture for organization org, with the campaign
// using templateID ("" for none).
func launchFixtureOf(t *testing.T, s *dynamo.Store, org string, n int, templateID string) (orgID string, c campaign.Campaign) {
	t.Helper()
	ctx := context.Background()
	orgID, _ = testenv.Org(t, s, org, 1_000)
	l, err := s.CreateContactList(ctx, orgID, "user-1", "list", "")
	if err != nil {
		t.Fatal(err)
	}
	in := make([]contact.Input, n)
	for i := range in {
		in[i] = contact.Input{MailID: fmt.Sprintf("c%d@example.com", i), FirstName: "C"}
	}
	if _, err := contact.NewApp(s, nil).AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: "test"}); err != nil {
		t.Fatal(err)
	}
	cat, err := seed.LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	c, err = testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "Launch", CreatedBy: "user-1", CampaignData: campaign.Data{
		ContactListID: l.ListID, ContactListIDs: []string{l.ListID}, GiftIDs: []string{cat.Gifts[0].GiftID},
		CreditsPerRecipient: 10, EmailTemplateID: templateID,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return orgID, c
}

func TestLaunchRacingAnEdit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := testenv.Store(t)
	db := &editBeforeLaunchDB{DB: testenv.Client(t)}
	s := dynamo.New(db, base.Table())
	orgID, c := launchFixture(t, s, 3)
	db.edit = func() {
		edited := c
		edited.Name = "Edited"
		if _, err := base.CommitEdit(ctx, campaign.EditPlan{OrgID: orgID, Campaign: edited, UserID: "user-2", Now: base.Now()}); err != nil {
			t.Error(err)
		}
	}
	_, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1")
	if gifting.ErrorCode(err) != gifting.CodeConflict || !strings.Contains(err.Error(), "edited") {
		t.Fatalf("err = %v, want CONFLICT saying the campaign was edited", err)
	}
	w, err := s.Wallet(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Campaign(ctx, orgID, c.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	if w.Balance != 1_000 || got.Status != campaign.Draft {
		t.Errorf("balance %d, status %s; want 1000 and draft: nothing changes", w.Balance, got.Status)
	}
	// Launching again prices the edited draft.
	if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
}

func TestLaunchSlicesRunTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, c := launchFixture(t, s, 7)
	l, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1")
	if err != nil {
		t.Fatal(err)
	}
	if l.CreditsDeducted != 70 || l.RemainingBalance != 930 {
		t.Fatalf("launch = %+v; want 70 taken, 930 left", l)
	}
	runSlicesTwice(t, s, orgID, c.CampaignID, nil)
	assertLaunched(t, s, orgID, c.CampaignID, 7)
}

// runSlicesTwice runs a launch job to its end with every slice delivered
// twice (SQS is at-least-once), the second copy running after the first.
func runSlicesTwice(t *testing.T, s *dynamo.Store, orgID, campaignID string, invite campaign.Inviter) {
	t.Helper()
	ctx := context.Background()
	cursor := ""
	for step := 0; ; step++ {
		if step > 10 {
			t.Fatal("the launch job does not finish")
		}
		if r, ok := invite.(*runInviter); ok {
			r.nextRun()
		}
		next, done, err := testenv.Campaigns(s, invite).LaunchSlice(ctx, orgID, campaignID, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := invite.(*runInviter); ok {
			r.nextRun()
		}
		again, doneAgain, err := testenv.Campaigns(s, invite).LaunchSlice(ctx, orgID, campaignID, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			if !doneAgain {
				t.Errorf("a finished launch's duplicate slice continues with %q", again)
			}
			return
		}
		cursor = next
	}
}

// runInviter is a campaign.Inviter that tells apart the runs of the slices
// it sends in (runSlicesTwice starts each run with nextRun): calls counts
// the runs that handed it invitations, nil counts none.
type runInviter struct {
	mu   sync.Mutex
	run  int
	runs map[int]bool
	send func(ctx context.Context, inv recipient.Invitation)
}

func (r *runInviter) nextRun() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.run++
}

func (r *runInviter) SendInvitation(ctx context.Context, _ string, inv recipient.Invitation) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs[r.run] = true
	r.send(ctx, inv)
	return true
}

func (r *runInviter) calls() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.runs)
}

// TestLaunchInvitations runs launches whose slices are all delivered twice
// and checks that the inviter is handed each new recipient exactly once,
// right after the transaction that counted it, pending with its invitation
// claimed, and that the campaign counts every recipient in the status it
// ends in: invite_sent once its send is recorded, pending otherwise.
func TestLaunchInvitations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	const n = 60 // one slice
	for _, tt := range []struct {
		name     string
		org      string
		template string
		inviter  bool
		failEach int // the inviter fails (and records it) every failEach-th send; 0: none
		invited  int // recipients ending invite_sent
	}{
		{"no inviter: all pending", "quiet", "tmpl-meeting-booker", false, 0, 0},
		{"inviter, no template: nothing to send", "plain", "", true, 0, 0},
		{"inviter sends all", "mailer", "tmpl-meeting-booker", true, 0, n},
		{"inviter fails every other send", "flaky", "tmpl-meeting-booker", true, 2, n / 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			orgID, c := launchFixtureOf(t, s, tt.org, n, tt.template)
			if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
				t.Fatal(err)
			}
			var (
				sends  = map[string]int{}
				failed = map[string]bool{}
				runs   *runInviter
				invite campaign.Inviter
			)
			if tt.inviter {
				runs = &runInviter{runs: map[int]bool{}, send: func(ctx context.Context, inv recipient.Invitation) {
					r := inv.Recipient
					e := r.Emails.AddressConfirmation
					if r.Status != gifting.RecipientPending || e.ClaimedAt == nil || e.Sent || e.Subject == "" {
						t.Errorf("invitation of a recipient %s, claimed %v, sent %v, subject %q; want pending, claimed, not yet sent, rendered",
							r.Status, e.ClaimedAt, e.Sent, e.Subject)
						return
					}
					sends[r.RecipientID]++
					var err error
					if tt.failEach > 0 && len(sends)%tt.failEach == 0 {
						failed[r.RecipientID] = true
						err = testenv.Recipients(s).EmailFailed(ctx, orgID, r.CampaignID, r.RecipientID, "addressConfirmation", "", *e.ClaimedAt)
					} else {
						err = testenv.Recipients(s).EmailSent(ctx, orgID, r.CampaignID, r.RecipientID, "addressConfirmation", "msg-"+r.RecipientID)
					}
					if err != nil {
						t.Error(err)
					}
				}}
				invite = runs
			}
			runSlicesTwice(t, s, orgID, c.CampaignID, invite)

			wantSends, wantCalls := 0, 0
			if tt.invited > 0 || tt.failEach > 0 {
				wantSends, wantCalls = n, 1
			}
			if calls := runs.calls(); len(sends) != wantSends || calls != wantCalls {
				t.Errorf("%d recipients handed to the inviter in %d runs, want %d in %d (the one that counted the slice)", len(sends), calls, wantSends, wantCalls)
			}
			for id, k := range sends {
				if k != 1 {
					t.Errorf("recipient %s handed to the inviter %d times, want once", id, k)
				}
				r, err := s.Recipient(ctx, orgID, c.CampaignID, id)
				if err != nil {
					t.Fatal(err)
				}
				want := gifting.RecipientInviteSent
				if failed[id] {
					want = gifting.RecipientPending
				}
				if inv := r.Emails.AddressConfirmation; r.Status != want || inv.Sent != (want == gifting.RecipientInviteSent) || (inv.ClaimedAt == nil) == inv.Sent {
					t.Errorf("recipient %s is %s (invitation sent %v, claimed %v), want %s", id, r.Status, inv.Sent, inv.ClaimedAt, want)
				}
			}
			got, err := s.Campaign(ctx, orgID, c.CampaignID)
			if err != nil {
				t.Fatal(err)
			}
			counts := got.LiveData.StatusCounts
			if got.Status != campaign.Live || got.TotalRecipients != n ||
				counts[gifting.RecipientInviteSent] != int64(tt.invited) || counts[gifting.RecipientPending] != int64(n-tt.invited) {
				t.Errorf("campaign %s with %d recipients, counts %v; want live, %d, %d invite_sent and %d pending",
					got.Status, got.TotalRecipients, counts, n, tt.invited, n-tt.invited)
			}
		})
	}
}
