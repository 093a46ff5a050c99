package dynamo

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/giftcampaign/service/shared/gifting"
)

// guarded is the DB every Store talks to: it turns the failures that mean
// DynamoDB cannot serve now into the domain's SERVICE_UNAVAILABLE, so no
// caller has to know an SDK error. The SDK error stays in the chain for
// errors.As (cancellation reasons, retryable), and the SDK has already
// retried it with backoff when it arrives here.
type guarded struct{ db DB }

var _ DB = guarded{}

// unavailable returns err as SERVICE_UNAVAILABLE when it says DynamoDB is
// unreachable, timing out, failing (5xx) or throttling, and as
// PAYLOAD_TOO_LARGE when it refused an item over 400 KB; any other err is
// returned as it is.
func unavailable(err error) error {
	if err == nil {
		return nil
	}
	var (
		send     *smithyhttp.RequestSendError
		resp     *smithyhttp.ResponseError
		internal *types.InternalServerError
		thr      *types.ProvisionedThroughputExceededException
		rle      *types.RequestLimitExceeded
		tle      *types.ThrottlingException
	)
	switch {
	case errors.As(err, &send), errors.As(err, &internal), errors.As(err, &thr), errors.As(err, &rle), errors.As(err, &tle),
		errors.As(err, &resp) && resp.HTTPStatusCode() >= 500:
		return gifting.Unavailable(err)
	}
	if itemTooLarge(err) {
		return gifting.TooLarge(err)
	}
	return err
}

// itemTooLarge reports whether err is DynamoDB refusing an item over its
// 400 KB limit: a client's oversized record, not a fault of the service.
// A transaction says so in a cancellation reason.
func itemTooLarge(err error) bool {
	const sign = "exceeded the maximum allowed size"
	var (
		api      smithy.APIError
		canceled *types.TransactionCanceledException
	)
	if errors.As(err, &canceled) {
		for _, r := range canceled.CancellationReasons {
			if strings.Contains(aws.ToString(r.Message), sign) {
				return true
			}
		}
		return false
	}
	return errors.As(err, &api) && api.ErrorCode() == "ValidationException" && strings.Contains(api.ErrorMessage(), sign)
}

func (g guarded) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := g.db.GetItem(ctx, in, opts...)
	return out, unavailable(err)
}

func (g guarded) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	out, err := g.db.PutItem(ctx, in, opts...)
	return out, unavailable(err)
}

func (g guarded) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	out, err := g.db.UpdateItem(ctx, in, opts...)
	return out, unavailable(err)
}

func (g guarded) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	out, err := g.db.DeleteItem(ctx, in, opts...)
	return out, unavailable(err)
}

func (g guarded) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	out, err := g.db.Query(ctx, in, opts...)
	return out, unavailable(err)
}

func (g guarded) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	out, err := g.db.BatchGetItem(ctx, in, opts...)
	return out, unavailable(err)
}

func (g guarded) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	out, err := g.db.BatchWriteItem(ctx, in, opts...)
	return out, unavailable(err)
}

func (g guarded) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	out, err := g.db.TransactWriteItems(ctx, in, opts...)
	return out, unavailable(err)
}

// BatchExecuteStatement runs the batch on a client that runs batches
// (statementBatcher), and answers errNotBatched otherwise.
func (g guarded) BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error) {
	b, ok := g.db.(statementBatcher)
	if !ok {
		return nil, errNotBatched
	}
	out, err := b.BatchExecuteStatement(ctx, in, opts...)
	return out, unavailable(err)
}
