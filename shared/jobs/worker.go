package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/giftcampaign/service/shared/lambdafn"
)

// WorkerHandler is the worker function's Lambda handler. The function has
// three event sources, told apart by the event's shape: the jobs queue (an
// SQS batch, run as SQSHandler does), the scheduler's EventBridge schedule
// (a scheduled event, which runs tick once) and the mail-events SNS topic
// (SES's bounces and complaints, handed to mailEvents; an error makes SNS
// deliver the notification again).
func WorkerHandler(h Handler, q Queue, tick func(context.Context) error, mailEvents func(context.Context, events.SNSEvent) error,
	log *slog.Logger) func(context.Context, json.RawMessage) (events.SQSEventResponse, error) {
	sqsHandler := SQSHandler(h, q, log)
	return func(ctx context.Context, raw json.RawMessage) (events.SQSEventResponse, error) {
		ctx = lambdafn.With(ctx, lambdafn.Worker)
		var probe struct {
			Source     string `json:"source"`
			DetailType string `json:"detail-type"`
			// SNS spells it EventSource, SQS eventSource; Go matches
			// either.
			Records []struct {
				EventSource string `json:"EventSource"`
			} `json:"Records"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			return events.SQSEventResponse{}, fmt.Errorf("decode worker event: %w", err)
		}
		if probe.Source == "aws.events" && probe.DetailType == "Scheduled Event" {
			// An error fails the invocation, which EventBridge does not
			// retry: the next tick, a minute later, is the retry.
			return events.SQSEventResponse{}, tick(ctx)
		}
		if len(probe.Records) > 0 && probe.Records[0].EventSource == "aws:sns" {
			var ev events.SNSEvent
			if err := json.Unmarshal(raw, &ev); err != nil {
				return events.SQSEventResponse{}, fmt.Errorf("decode SNS event: %w", err)
			}
			return events.SQSEventResponse{}, mailEvents(ctx, ev)
		}
		var ev events.SQSEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return events.SQSEventResponse{}, fmt.Errorf("decode SQS event: %w", err)
		}
		return sqsHandler(ctx, ev)
	}
}
