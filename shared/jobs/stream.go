package jobs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
)

// WithChanges extends the worker function's handler with its third event
// source, the table's stream (a DynamoDB event source mapping that passes
// only change records): a batch of stream records goes to changes, every
// other event to worker. An error from changes fails the invocation, so
// Lambda splits the batch and gives its records again (the deliveries
// already started are not repeated).
func WithChanges(worker func(context.Context, json.RawMessage) (events.SQSEventResponse, error),
	changes func(context.Context, events.DynamoDBEvent) error) func(context.Context, json.RawMessage) (events.SQSEventResponse, error) {
	return func(ctx context.Context, raw json.RawMessage) (events.SQSEventResponse, error) {
		var probe struct {
			Records []struct {
				EventSource string `json:"eventSource"`
			} `json:"Records"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return events.SQSEventResponse{}, fmt.Errorf("decode worker event: %w", err)
		}
		if len(probe.Records) == 0 || probe.Records[0].EventSource != "aws:dynamodb" {
			return worker(ctx, raw)
		}
		var ev events.DynamoDBEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return events.SQSEventResponse{}, fmt.Errorf("decode DynamoDB stream event: %w", err)
		}
		return events.SQSEventResponse{}, changes(ctx, ev)
	}
}
