package scheduler_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// clock is a test's settable time, injected into the store.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// mailEnv is a store on a fresh table with a settable clock, the use cases
// with the SES mailer on the emulator of this test run, and a scheduler.
type mailEnv struct {
	t        *testing.T
	store    *dynamo.Store
	svc      *service.Service
	sched    *scheduler.Scheduler
	clock    *clock
	endpoint string
	orgID    string
	// tag makes this test's addresses unique in the shared emulator.
	tag string
}

func newMailEnv(t *testing.T) *mailEnv {
	t.Helper()
	endpoint := localstack.SESEndpoint(t)
	clk := &clock{now: time.Now().UTC().Truncate(time.Millisecond)}
	s := dynamo.New(testenv.Client(t), testenv.Store(t).Table(), dynamo.WithClock(clk.Now))
	// A configuration set, as every deployment that sends mail names one.
	mailer, err := sesmail.New(app.Config{SenderAddress: "gifts@example.com", SESConfigurationSet: "gift-campaigns-test",
		SESEndpoint: endpoint, PublicBaseURL: "https://gifts.test"})
	if err != nil {
		t.Fatal(err)
	}
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Mailer: mailer})
	orgID, _ := testenv.Org(t, s, "acme", 10_000)
	e := &mailEnv{t: t, store: s, svc: svc, clock: clk, endpoint: endpoint, orgID: orgID, tag: strings.ToLower(gifting.NewID())}
	e.sched = e.newScheduler()
	return e
}

// campaign creates a campaign on the meeting-booker template (invitation
// at once, reminders after 72 and 168 hours, post-delivery at once,
// post-acknowledgement after 24 hours) in state st.
func (e *mailEnv) campaign(st campaign.Status) campaign.Campaign {
	e.t.Helper()
	c, err := testenv.CreateCampaign(context.Background(), e.store, e.orgID, campaign.Campaign{
		Name: "Spring", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{"gift-artisan-coffee"}, EmailTemplateID: "tmpl-meeting-booker", CreditsPerRecipient: 10},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	if st != campaign.Draft {
		testenv.SetCampaignStatus(e.t, e.store, e.orgID, c.CampaignID, st)
	}
	return c
}

// address is this test's address for name.
func (e *mailEnv) address(name string) string { return name + "-" + e.tag + "@example.com" }

// add adds name's address to campaign c through the use case.
func (e *mailEnv) add(c campaign.Campaign, name string) recipient.AddResult {
	e.t.Helper()
	res, err := e.svc.Recipients().Add(context.Background(), recipient.AddInput{
		OrgID: e.orgID, CampaignID: c.CampaignID, SourceType: "api",
		Contact: gifting.ContactInput{MailID: e.address(name), FirstName: "Jane"},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// newScheduler is another scheduler over the same store and use cases.
func (e *mailEnv) newScheduler() *scheduler.Scheduler {
	return scheduler.New(e.store, e.svc.RunJob, testenv.Quiet)
}

// tick runs one scheduler tick.
func (e *mailEnv) tick() {
	e.t.Helper()
	if err := e.sched.Tick(context.Background()); err != nil {
		e.t.Fatal(err)
	}
}

// received returns the emails the emulator received for name, oldest
// first.
func (e *mailEnv) received(name string) []localstack.Email {
	e.t.Helper()
	var got []localstack.Email
	for _, m := range localstack.ReadEmails(e.t, e.endpoint) {
		for _, to := range m.Destination.To {
			if strings.Contains(to, e.address(name)) {
				got = append(got, m)
			}
		}
	}
	return got
}

// subjects are the subjects of name's emails.
func (e *mailEnv) subjects(name string) []string {
	e.t.Helper()
	var s []string
	for _, m := range e.received(name) {
		s = append(s, m.Subject)
	}
	return s
}

// recipient reads a recipient back.
func (e *mailEnv) recipient(campaignID, recipientID string) recipient.Recipient {
	e.t.Helper()
	r, err := e.store.Recipient(context.Background(), e.orgID, campaignID, recipientID)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *mailEnv) wantSubjects(name string, want ...string) {
	e.t.Helper()
	got := e.subjects(name)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		e.t.Errorf("emails received by %s: %q, want %q", name, got, want)
	}
}

const (
	invitation = "Jane, a gift is on its way to you"
	reminder1  = "Your gift is waiting, Jane"
	reminder2  = "Last reminder: your gift"
	delivered  = "Did your gift arrive?"
	thanks     = "Thank you, Jane"
)

func TestInvitationGoesOutWithItsLinks(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	res := e.add(e.campaign(campaign.Live), "jane")
	if !res.Response.EmailSent {
		t.Fatal("emailSent false for a live campaign with a mailer")
	}
	got := e.received("jane")
	if len(got) != 1 {
		t.Fatalf("%d emails received, want the invitation", len(got))
	}
	m := got[0]
	r := e.recipient(res.Response.CampaignID, res.Response.RecipientID)
	unsubscribe := "https://gifts.test/unsubscribe/" + r.LandingPageID
	for _, link := range []string{res.Response.LandingPageURL, unsubscribe} {
		if !strings.Contains(m.Body.HTML, link) || !strings.Contains(m.Body.Text, link) {
			t.Errorf("invitation lacks the link %s in both parts", link)
		}
	}
	if h := m.Header("List-Unsubscribe"); !strings.Contains(h, unsubscribe) {
		t.Errorf("List-Unsubscribe = %q, want %s", h, unsubscribe)
	}
	inv := r.Emails.AddressConfirmation
	if !inv.Sent || inv.SentAt == nil || inv.MessageID != m.MessageID || r.Status != gifting.RecipientInviteSent {
		t.Errorf("invitation entry sent %v at %v, message %q (emulator %q), status %s; want sent with the emulator's id, invite_sent",
			inv.Sent, inv.SentAt, inv.MessageID, m.MessageID, r.Status)
	}
	e.tick()
	e.wantSubjects("jane", invitation) // the tick does not send it again
	// The month's counters hold the invitation as an event, beside the
	// email it counts as sent (the report by month).
	month := e.store.Now().UTC().Format("2006-01")
	mc, err := e.store.MonthCounts(context.Background(), e.orgID, []string{month})
	if err != nil || len(mc) != 1 || mc[0].Events[campaign.EventInvited] != 1 || mc[0].RecipientsAdded != 1 {
		t.Errorf("the month's counters: %+v, %v; want 1 recipient added and 1 invited", mc, err)
	}
}

func TestRemindersGoOutAtTheirTime(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	jane := e.add(c, "jane")
	john := e.add(c, "john")
	testenv.Claim(t, e.store, e.orgID, c.CampaignID, john.Response.RecipientID) // john confirms his address

	e.clock.Advance(72*time.Hour - time.Minute)
	e.tick()
	e.wantSubjects("jane", invitation)

	e.clock.Advance(time.Minute)
	e.tick()
	e.wantSubjects("jane", invitation, reminder1)

	e.clock.Advance(96 * time.Hour)
	e.tick()
	e.tick()
	e.wantSubjects("jane", invitation, reminder1, reminder2)
	e.wantSubjects("john", invitation) // no reminder after a confirmation

	r := e.recipient(c.CampaignID, jane.Response.RecipientID)
	if !r.Emails.Reminder1.Sent || !r.Emails.Reminder2.Sent || r.Emails.Reminder2.SentAt == nil || !r.Emails.Reminder2.SentAt.Equal(e.clock.Now()) {
		t.Errorf("reminders sent %v, %v at %v; want both sent, the second now", r.Emails.Reminder1.Sent, r.Emails.Reminder2.Sent, r.Emails.Reminder2.SentAt)
	}
}

func TestPostDeliveryFollowsDelivery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	jane := e.add(c, "jane")
	id := jane.Response.RecipientID
	testenv.Claim(t, e.store, e.orgID, c.CampaignID, id)
	e.tick()
	e.wantSubjects("jane", invitation)

	testenv.Ship(t, e.store, e.orgID, c.CampaignID, id) // its order ships first (issue 31)
	if _, err := e.svc.Recipients().Move(ctx, e.orgID, c.CampaignID, id, gifting.RecipientDelivered); err != nil {
		t.Fatal(err)
	}
	e.tick()
	e.wantSubjects("jane", invitation, delivered) // delivered before the shipped email went out: it never does

	// A completed campaign still sends what follows an acknowledgement.
	testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Completed)
	if _, err := e.svc.Recipients().Move(ctx, e.orgID, c.CampaignID, id, gifting.RecipientAcknowledged); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(24 * time.Hour)
	e.tick()
	e.wantSubjects("jane", invitation, delivered, thanks)
}

func TestCampaignStateRules(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	t.Run("a draft sends nothing until it is live", func(t *testing.T) {
		c := e.campaign(campaign.Draft)
		res := e.add(c, "draft")
		if res.Response.EmailSent {
			t.Error("emailSent true for a draft campaign")
		}
		e.tick()
		e.wantSubjects("draft")
		testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Live)
		e.clock.Advance(recipient.EmailHold)
		e.tick()
		e.wantSubjects("draft", invitation)
		if r := e.recipient(c.CampaignID, res.Response.RecipientID); r.Status != gifting.RecipientInviteSent {
			t.Errorf("status %s after the invitation went out, want invite_sent", r.Status)
		}
	})
	t.Run("a paused campaign holds reminders until it resumes", func(t *testing.T) {
		c := e.campaign(campaign.Live)
		e.add(c, "paused")
		testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.InProgress)
		e.clock.Advance(72 * time.Hour)
		e.tick()
		e.wantSubjects("paused", invitation)
		testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Live)
		e.clock.Advance(recipient.EmailHold)
		e.tick()
		e.wantSubjects("paused", invitation, reminder1)
	})
	t.Run("a completed campaign sends no reminder", func(t *testing.T) {
		c := e.campaign(campaign.Live)
		e.add(c, "completed")
		testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Completed)
		e.clock.Advance(200 * time.Hour)
		e.tick()
		e.wantSubjects("completed", invitation)
	})
}

func TestSuppressedAddressIsNeverMailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	if err := e.store.Suppress(ctx, e.orgID, strings.ToUpper(e.address("gone")), "bounced"); err != nil {
		t.Fatal(err)
	}
	res := e.add(e.campaign(campaign.Live), "gone")
	if res.Response.EmailSent {
		t.Error("emailSent true for a suppressed address")
	}
	e.clock.Advance(200 * time.Hour)
	e.tick()
	e.wantSubjects("gone")
	r := e.recipient(res.Response.CampaignID, res.Response.RecipientID)
	if inv := r.Emails.AddressConfirmation; r.Status != gifting.RecipientPending || inv.Sent || inv.Failure != recipient.EmailSuppressed {
		t.Errorf("status %s, invitation sent %v failure %q; want pending, not sent, suppressed", r.Status, inv.Sent, inv.Failure)
	}
}

// TestOverlappingTicksSendEachEmailOnce runs two schedulers at once over
// recipients whose invitations were held: each goes out once.
func TestOverlappingTicksSendEachEmailOnce(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c := e.campaign(campaign.Draft)
	const n = 12
	for i := range n {
		e.add(c, fmt.Sprintf("r%d", i))
	}
	testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Live)
	e.clock.Advance(time.Minute)
	other := e.newScheduler()
	var wg sync.WaitGroup
	for _, s := range []*scheduler.Scheduler{e.sched, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Tick(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	e.clock.Advance(dynamo.DueLease)
	e.tick()
	for i := range n {
		e.wantSubjects(fmt.Sprintf("r%d", i), invitation)
	}
}
