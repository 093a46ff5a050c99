package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"
)

// WorkerHandler is the worker function's Lambda handler. The function has
// two event sources: the jobs queue (an SQS batch, run as SQSHandler does)
// and the scheduler's EventBridge schedule (a scheduled event, which runs
// tick once).
func WorkerHandler(h Handler, q Queue, tick func(context.Context) error, log *slog.Logger) func(context.Context, json.RawMessage) (events.SQSEventResponse, error) {
	sqsHandler := SQSHandler(h, q, log)
	return func(ctx context.Context, raw json.RawMessage) (events.SQSEventResponse, error) {
		var probe struct {
			Source     string `json:"source"`
			DetailType string `json:"detail-type"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return events.SQSEventResponse{}, fmt.Errorf("decode worker event: %w", err)
		}
		if probe.Source == "aws.events" && probe.DetailType == "Scheduled Event" {
			// An error fails the invocation, which EventBridge does not
			// retry: the next tick, a minute later, is the retry.
			return events.SQSEventResponse{}, tick(ctx)
		}
		var ev events.SQSEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return events.SQSEventResponse{}, fmt.Errorf("decode SQS event: %w", err)
		}
		return sqsHandler(ctx, ev)
	}
}
