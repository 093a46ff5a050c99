package app

import (
	"context"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/lambdafn"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/webhook"
)

// DeliverChange hands one committed change record to svc's webhook
// deliveries (webhook.App.Deliver): the one handler of the table's stream,
// locally and in AWS.
func DeliverChange(svc *service.Service) dynamo.ChangeHandler {
	return func(ctx context.Context, cr dynamo.ChangeRecord) error {
		return svc.Webhooks().Deliver(lambdafn.With(ctx, lambdafn.Worker), cr)
	}
}

// ChangeStreamHandler is the worker's handler of the table's stream: the
// batch's inserted change records go to DeliverChange, each organization's
// in order and different organizations' side by side
// (webhook.HandleRecords). A failure fails the batch, which Lambda then
// splits and gives again; a record given again starts only the deliveries
// it had not started.
func ChangeStreamHandler(svc *service.Service) func(context.Context, events.DynamoDBEvent) error {
	deliver := DeliverChange(svc)
	return func(ctx context.Context, ev events.DynamoDBEvent) error {
		var recs []dynamo.ChangeRecord
		var ids []string
		for _, rec := range ev.Records {
			if rec.EventName != string(events.DynamoDBOperationTypeInsert) {
				continue
			}
			if cr, ok := dynamo.ChangeRecordOfLambda(rec.Change.NewImage); ok {
				recs, ids = append(recs, cr), append(ids, rec.EventID)
			}
		}
		for i, err := range webhook.HandleRecords(ctx, deliver, recs) {
			if err != nil {
				return fmt.Errorf("deliver change record %s: %w", ids[i], err)
			}
		}
		return nil
	}
}
