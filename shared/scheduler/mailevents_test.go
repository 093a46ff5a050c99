package scheduler_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
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
		{"hard bounce", "sns-bounce-permanent.json", "0100018e-msg-bounce-000000", "jane.doe@example.com", gifting.EmailBounced},
		{"complaint", "sns-complaint.json", "0100018e-msg-complaint-000000", "angry@example.com", gifting.EmailComplained},
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
			c := e.campaign(gifting.CampaignLive)
			res, err := svc.AddRecipient(ctx, gifting.AddRecipientInput{OrgID: orgID, CampaignID: c.CampaignID, SourceType: "api",
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
			clk.Advance(200 * time.Hour)
			if err := sched.Tick(ctx); err != nil {
				t.Fatal(err)
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
