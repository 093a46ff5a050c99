package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/aws/aws-lambda-go/events"

	"github.com/giftcampaign/service/shared/lambdafn"
)

// SQSHandler is the worker function's Lambda handler: it runs the job of
// each message and enqueues its continuation. Failed messages are reported
// back as batch item failures, so SQS retries only them (and moves them to
// the dead-letter queue after the redrive policy's attempts).
func SQSHandler(h Handler, q Queue, log *slog.Logger) func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		ctx = lambdafn.With(ctx, lambdafn.Worker)
		var res events.SQSEventResponse
		for _, msg := range ev.Records {
			if err := handleMessage(ctx, h, q, msg.Body); err != nil {
				log.ErrorContext(ctx, "job failed", slog.String("messageId", msg.MessageId), slog.String("error", err.Error()))
				res.BatchItemFailures = append(res.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: msg.MessageId})
			}
		}
		return res, nil
	}
}

func handleMessage(ctx context.Context, h Handler, q Queue, body string) error {
	var j Job
	if err := json.Unmarshal([]byte(body), &j); err != nil {
		return fmt.Errorf("decode job: %w", err)
	}
	next, err := h(ctx, j)
	if err != nil {
		return fmt.Errorf("%s: %w", j, err)
	}
	if next != nil {
		return q.Enqueue(ctx, *next)
	}
	return nil
}
