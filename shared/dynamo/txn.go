package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// Names of the conditioned items of transactions. A cancelled transaction
// says which item's condition failed by its position; txn remembers the
// position of each named item, so the failure maps to a named domain error
// (a-h/stream's way), never to a bare index.
const (
	condCampaign    = "campaign"    // the campaign in the state the writer read
	condRecipient   = "recipient"   // a recipient new, or at the version read
	condIdempotency = "idempotency" // no live record of the Idempotency-Key
	condLaunch      = "launch"      // the launch record, written once
	condEmail       = "email"       // the email marker of a contact
	condTarget      = "target"      // the item a delete removes, which must exist
	condAudience    = "audience"    // the audience as its build left it
	condTopUp       = "top-up"      // no top-up under the operator's request id yet
)

// txn builds a transaction's items, remembering which item carries which
// condition.
type txn struct {
	items []types.TransactWriteItem
	at    map[string]int
}

// add appends items; the first of them is named name ("" names none).
func (t *txn) add(name string, items ...types.TransactWriteItem) {
	if name != "" && len(items) > 0 {
		if t.at == nil {
			t.at = map[string]int{}
		}
		t.at[name] = len(t.items)
	}
	t.items = append(t.items, items...)
}

// failed reports whether the item named name failed its condition among a
// cancelled transaction's reasons.
func (t *txn) failed(reasons []types.CancellationReason, name string) bool {
	i, ok := t.at[name]
	return ok && reasonCode(reasons, i) == "ConditionalCheckFailed"
}

// old is the item named name as it stood when its condition failed (the
// item returned with ReturnValuesOnConditionCheckFailure), nil when none.
func (t *txn) old(reasons []types.CancellationReason, name string) item {
	i, ok := t.at[name]
	if !ok || i >= len(reasons) {
		return nil
	}
	return reasons[i].Item
}

// transactRetrying runs a transaction, retrying conflicts and throttling.
// Each retry gives the transaction's change record a new id from the
// store's clock (restampChanges): the retries can outlast FeedLag, and a
// record committed with the id of its first attempt could sort before a
// cursor the change feed has already served.
func (s *Store) transactRetrying(ctx context.Context, items []types.TransactWriteItem) error {
	for attempt := 1; ; attempt++ {
		err := s.transact(ctx, s.NewID(), items)
		if err == nil || !retryable(err) || attempt >= maxAttempts {
			return err
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
		if items, err = s.restampChanges(items); err != nil {
			return err
		}
	}
}

// inProgressResends bounds the resends of a transaction DynamoDB still
// runs (transact): a few, well within FeedLag of the change record the
// transaction carries.
const inProgressResends = 4

// transact runs a transaction once under the ClientRequestToken token,
// which must name this attempt alone (same items, same token; a rebuilt
// attempt takes a new one). When the SDK's retries of an answer lost in
// transit (a timeout, a reset connection) meet the first send still in
// progress, its outcome is unknown: transact sends the same request again
// with the same token, which DynamoDB answers with the first send's
// outcome for 10 minutes, rather than the caller rebuilding it, which
// would meet the first send's own writes and report as failed (a conflict,
// already done, no credits left) what happened. Still in progress after
// inProgressResends, it is SERVICE_UNAVAILABLE, which may have happened.
func (s *Store) transact(ctx context.Context, token string, items []types.TransactWriteItem) error {
	in := &dynamodb.TransactWriteItemsInput{TransactItems: items, ClientRequestToken: aws.String(token)}
	for resend := 1; ; resend++ {
		_, err := s.db.TransactWriteItems(ctx, in)
		var inProgress *types.TransactionInProgressException
		if !errors.As(err, &inProgress) {
			return err
		}
		if resend > inProgressResends {
			return gifting.Unavailable(fmt.Errorf("transaction still in progress after %d resends: %w", inProgressResends, err))
		}
		if err := sleep(ctx, backoff(resend)); err != nil {
			return err
		}
	}
}
