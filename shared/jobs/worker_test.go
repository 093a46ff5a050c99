package jobs_test

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/giftcampaign/service/shared/jobs"
)

// TestWorkerHandlerDispatches feeds the worker function the three events
// its sources send (testdata) and checks each reaches its own path: the
// schedule runs one tick, the queue's message runs its job, SES's
// notification through SNS reaches the mail events.
func TestWorkerHandlerDispatches(t *testing.T) {
	for _, tt := range []struct {
		name          string
		fixture       string
		ticks, slices int
		mail          int
	}{
		{"EventBridge schedule: one tick", "testdata/scheduled-event.json", 1, 0, 0},
		{"SQS message: its job", "testdata/sqs-event.json", 0, 1, 0},
		{"SNS notification: the mail events", "../mail/testdata/sns-bounce-permanent.json", 0, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := os.ReadFile(tt.fixture)
			if err != nil {
				t.Fatal(err)
			}
			var ticks, slices, mail int
			var ran jobs.Job
			h := jobs.WorkerHandler(
				func(_ context.Context, j jobs.Job) (*jobs.Job, error) { slices++; ran = j; return nil, nil },
				jobs.NewLocal(slog.New(slog.DiscardHandler)),
				func(context.Context) error { ticks++; return nil },
				func(_ context.Context, ev events.SNSEvent) error { mail += len(ev.Records); return nil },
				slog.New(slog.DiscardHandler))
			res, err := h(context.Background(), raw)
			if err != nil || len(res.BatchItemFailures) != 0 {
				t.Fatalf("handler: %v, failures %v", err, res.BatchItemFailures)
			}
			if ticks != tt.ticks || slices != tt.slices || mail != tt.mail {
				t.Errorf("%d ticks, %d job slices, %d mail notifications; want %d, %d and %d", ticks, slices, mail, tt.ticks, tt.slices, tt.mail)
			}
			if tt.slices > 0 && (ran.Kind != "campaign.launch" || ran.OrgID != "acme" || ran.Ref != "01CAMPAIGN") {
				t.Errorf("ran %v, want the message's launch job", ran)
			}
		})
	}
}
