package app

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/service"
)

// DeliverChange hands one committed change record to svc's webhook
// deliveries: the one handler of the table's stream, locally and in AWS.
func DeliverChange(svc *service.Service) dynamo.ChangeHandler {
	return func(ctx context.Context, cr dynamo.ChangeRecord) error {
		return svc.DeliverChanges(ctx, cr.OrgID, cr.Messages)
	}
}

// ChangeStreamHandler is the worker's handler of the table's stream: each
// inserted change record, in order, goes to DeliverChange. The first
// failure fails the batch, which Lambda then splits and gives again.
func ChangeStreamHandler(svc *service.Service) func(context.Context, events.DynamoDBEvent) error {
	deliver := DeliverChange(svc)
	return func(ctx context.Context, ev events.DynamoDBEvent) error {
		for _, rec := range ev.Records {
			if rec.EventName != string(events.DynamoDBOperationTypeInsert) {
				continue
			}
			cr, ok := dynamo.ChangeRecordOfLambda(rec.Change.NewImage)
			if !ok {
				continue
			}
			if err := deliver(ctx, cr); err != nil {
				return fmt.Errorf("deliver change record %s: %w", rec.EventID, err)
			}
		}
		return nil
	}
}
