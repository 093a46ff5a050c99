package scheduler_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// fixedIDMailer accepts every message under the message id of the SES
// event fixture the test plays, so the fixture names the email sent.
type fixedIDMailer struct {
	mail.Memory
	id string
}

func (m *fixedIDMailer) SendEmail(ctx context.Context, msg mail.Message) (mail.Sent, error) {
	if _, err := m.Memory.SendEmail(ctx, msg); err != nil {
		return mail.Sent{}, err
	}
	return mail.Sent{MessageID: m.id}, nil
}

// TestSESEventsThroughTheWorker plays SES's notifications (shared/mail's
// fixtures, as SNS delivers them) through the worker function's handler: a
// hard bounce and a complaint mark the invitation, stop the reminders and
// suppress the address; a soft bounce changes nothing.
func TestSESEventsThroughTheWorker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, fixture, messageID, address string
		failure                           string // "" for none
	}{
		{"hard bounce", "sns-bounce-permanent.json", "0100018e-msg-bounce-000000", "jane.doe@example.com", recipient.EmailBounced},
		{"complaint", "sns-complaint.json", "0100018e-msg-complaint-000000", "angry@example.com", recipient.EmailComplained},
		{"soft bounce", "sns-bounce-transient.json", "0100018e-msg-transient-000000", "full@example.com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clk := &clock{now: time.Now().UTC()}
			s := dynamo.New(testenv.Client(t), testenv.Store(t).Table(), dynamo.WithClock(clk.Now))
			mailer := &fixedIDMailer{id: tt.messageID}
			svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Mailer: mailer})
			orgID, _ := testenv.Org(t, s, "acme", 100)
			e := &mailEnv{t: t, store: s, svc: svc, clock: clk, orgID: orgID}
			c := e.campaign(campaign.Live)
			res, err := svc.Recipients().Add(ctx, recipient.AddInput{OrgID: orgID, CampaignID: c.CampaignID, SourceType: "api",
				Contact: gifting.ContactInput{MailID: tt.address, FirstName: "Jane"}})
			if err != nil || !res.Response.EmailSent {
				t.Fatalf("add: %v, emailSent %v", err, res.Response.EmailSent)
			}

			raw, err := os.ReadFile("../mail/testdata/" + tt.fixture)
			if err != nil {
				t.Fatal(err)
			}
			sched := e.newScheduler()
			handler := jobs.WorkerHandler(svc.RunJob, jobs.NewLocal(slog.New(slog.DiscardHandler)), sched.Tick, svc.HandleMailEvents, testenv.Quiet)
			for range 2 { // SNS may deliver twice
				if _, err := handler(ctx, raw); err != nil {
					t.Fatal(err)
				}
			}

			r := e.recipient(c.CampaignID, res.Response.RecipientID)
			suppressed, err := s.IsSuppressed(ctx, orgID, tt.address)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Emails.AddressConfirmation.Failure; got != tt.failure || suppressed != (tt.failure != "") {
				t.Errorf("invitation failure %q, address suppressed %v; want %q, %v", got, suppressed, tt.failure, tt.failure != "")
			}
			for _, h := range []time.Duration{72, 128} { // each reminder at its time
				clk.Advance(h * time.Hour)
				if err := sched.Tick(ctx); err != nil {
					t.Fatal(err)
				}
			}
			want := 3 // the invitation and both reminders
			if tt.failure != "" {
				want = 1 // the reminders stopped
			}
			if n := len(mailer.Sent()); n != want {
				t.Errorf("%d emails sent in all, want %d", n, want)
			}
		})
	}
}

// TestTickCostPerEmail measures a tick that sends n held invitations (a
// draft's recipients, once it is live): requests and capacity units per
// email sent, as DynamoDB Local reports them.
func TestTickCostPerEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &clock{now: time.Now().UTC()}
	m := meter.New(testenv.Client(t))
	// Keyed as the worker keys suppressions (its first lookup makes the
	// key: counted here, as in a new stack's first tick).
	s := dynamo.New(m, testenv.Store(t).Table(), dynamo.WithClock(clk.Now), testenv.SuppressionKey(t))
	mailer := &mail.Memory{}
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Mailer: mailer})
	orgID, _ := testenv.Org(t, s, "acme", 10_000)
	e := &mailEnv{t: t, store: s, svc: svc, clock: clk, orgID: orgID, tag: "cost"}
	c := e.campaign(campaign.Draft)
	const n = 20
	for i := range n {
		if _, err := svc.Recipients().Add(ctx, recipient.AddInput{OrgID: orgID, CampaignID: c.CampaignID, SourceType: "api",
			Contact: gifting.ContactInput{MailID: e.address(string(rune('a' + i))), FirstName: "Jane"}}); err != nil {
			t.Fatal(err)
		}
	}
	testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
	clk.Advance(time.Minute)
	before := m.Total()
	if err := e.newScheduler().Tick(ctx); err != nil {
		t.Fatal(err)
	}
	got := m.Total().Sub(before)
	if sent := len(mailer.Sent()); sent != n {
		t.Fatalf("%d emails sent, want %d", sent, n)
	}
	per := func(v float64) float64 { return v / n }
	t.Logf("tick sending %d emails: per email %.1f requests, %.1f read units, %.1f write units",
		n, per(float64(got.Requests)), per(got.ReadUnits), per(got.WriteUnits))
	// The due index query (4 shards, amortized), the claim of the due item,
	// the recipient, campaign, organization (suspended?) and suppression
	// reads, the email's claim and its sent record: at most 10 requests
	// an email (9 before the organization's suspension read).
	if per(float64(got.Requests)) > 10 {
		t.Errorf("%.1f requests per email, want at most 10", per(float64(got.Requests)))
	}
	// The recipient (≈ 4 KB) is written three times an email; the Due
	// index adds one small entry write each, where an index copying the
	// whole item (GSI1, projection ALL) cost 34 write units an email.
	if per(got.WriteUnits) > 24 {
		t.Errorf("%.1f write units per email, want at most 24: does the due index copy whole items?", per(got.WriteUnits))
	}
}
