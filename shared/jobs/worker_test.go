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
// notification through SNS reaches the mail events, the table's stream
// hands over its change records.
func TestWorkerHandlerDispatches(t *testing.T) {
	for _, tt := range []struct {
		name          string
		fixture       string
		ticks, slices int
		mail, changes int
	}{
		{"EventBridge schedule: one tick", "testdata/scheduled-event.json", 1, 0, 0, 0},
		{"SQS message: its job", "testdata/sqs-event.json", 0, 1, 0, 0},
		{"SNS notification: the mail events", "../mail/testdata/sns-bounce-permanent.json", 0, 0, 1, 0},
		{"DynamoDB stream: its change records", "testdata/dynamodb-stream-event.json", 0, 0, 0, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := os.ReadFile(tt.fixture)
			if err != nil {
				t.Fatal(err)
			}
			var ticks, slices, mail, changes int
			var ran jobs.Job
			var image map[string]events.DynamoDBAttributeValue
			h := jobs.WithChanges(jobs.WorkerHandler(
				func(_ context.Context, j jobs.Job) (*jobs.Job, error) { slices++; ran = j; return nil, nil },
				jobs.NewLocal(slog.New(slog.DiscardHandler)),
				func(context.Context) error { ticks++; return nil },
				func(_ context.Context, ev events.SNSEvent) error { mail += len(ev.Records); return nil },
				slog.New(slog.DiscardHandler)),
				func(_ context.Context, ev events.DynamoDBEvent) error {
					for _, r := range ev.Records {
						changes++
						image = r.Change.NewImage
					}
					return nil
				})
			res, err := h(context.Background(), raw)
			if err != nil || len(res.BatchItemFailures) != 0 {
				t.Fatalf("handler: %v, failures %v", err, res.BatchItemFailures)
			}
			if ticks != tt.ticks || slices != tt.slices || mail != tt.mail || changes != tt.changes {
				t.Errorf("%d ticks, %d job slices, %d mail notifications, %d change records; want %d, %d, %d and %d",
					ticks, slices, mail, changes, tt.ticks, tt.slices, tt.mail, tt.changes)
			}
			if tt.changes > 0 && (image["rec"].String() != "change" || image["org"].String() != "acme" || len(image["msgs"].List()) != 1) {
				t.Errorf("change record image %v, want the fixture's record of acme with one message", image)
			}
			if tt.slices > 0 && (ran.Kind != "campaign.launch" || ran.OrgID != "acme" || ran.Ref != "01CAMPAIGN") {
				t.Errorf("ran %v, want the message's launch job", ran)
			}
		})
	}
}
