package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// TopUpRequest is one operator top-up named by the operator's request id
// (an invoice number, a ticket): running it again with the same id, after a
// timeout or a crash, adds nothing.
type TopUpRequest struct {
	OrgID     string
	RequestID string
	Credits   int64
	Reason    string
}

// TopUpResult is what a top-up request did. When Replayed is true the
// request id had already been applied and nothing was written now: Entry is
// the ledger entry of that first run and Wallet the balance as it is now.
type TopUpResult struct {
	RequestID string              `json:"requestId"`
	Replayed  bool                `json:"replayed"`
	Wallet    gifting.Wallet      `json:"wallet"`
	Entry     gifting.LedgerEntry `json:"ledgerEntry"`
}

// topUpRecord is the item that marks a request id as applied. It is written
// in the transaction of the top-up itself, so the credits were added if and
// only if it exists. It has no TTL: a late re-run must stay a no-op.
type topUpRecord struct {
	RequestID string    `json:"requestId"`
	EntryID   string    `json:"entryId"`
	Credits   int64     `json:"credits"`
	Reason    string    `json:"reason,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// topUpDone is the cancellation of a top-up whose request id another run
// applied first: it carries that run's record.
type topUpDone struct{ record item }

func (topUpDone) Error() string { return "top-up already applied" }

// TopUpOnce adds r.Credits to the wallet of r.OrgID, with a ledger entry,
// at most once per r.RequestID: the wallet update, the ledger entry and a
// record of the request id are one transaction. A repeat of the same
// request (same credits and reason) writes nothing and returns the first
// run's ledger entry with Replayed set; a repeat with other credits or
// another reason is IDEMPOTENCY_KEY_REUSED. Bad credits or request id are
// VALIDATION_FAILED, an unknown organization NOT_FOUND.
func (s *Store) TopUpOnce(ctx context.Context, r TopUpRequest) (TopUpResult, error) {
	if !gifting.ValidID(r.RequestID) { // it becomes part of a sort key
		return TopUpResult{}, &gifting.Error{Code: gifting.CodeValidation,
			Message: "the request id must be 1 to 128 letters, digits or . _ : -",
			Details: map[string]string{"request-id": "must be 1 to 128 letters, digits or . _ : -"}}
	}
	// A first read answers a plain re-run, even one that the wallet could
	// no longer take (a top-up that filled it to the most it holds); the
	// record's condition in the transaction settles a concurrent one.
	var rec topUpRecord
	found, err := s.get(ctx, orgPK(r.OrgID), topUpSK(r.RequestID), &rec)
	if err != nil {
		return TopUpResult{}, err
	}
	if found {
		return s.topUpReplay(ctx, r, rec)
	}
	var entryID string
	var tx txn
	w, e, err := s.topUp(ctx, r.OrgID, r.Credits, BalanceChange{
		Named: func(id string) { entryID = id },
		Items: func(int64) ([]types.TransactWriteItem, error) {
			it, err := withKey(topUpRecord{RequestID: r.RequestID, EntryID: entryID, Credits: r.Credits,
				Reason: r.Reason, CreatedAt: s.Now()}, map[string]string{"PK": orgPK(r.OrgID), "SK": topUpSK(r.RequestID)})
			if err != nil {
				return nil, err
			}
			tx = txn{}
			tx.add(condTopUp, types.TransactWriteItem{Put: &types.Put{
				TableName: &s.table, Item: it,
				ConditionExpression:                 aws.String("attribute_not_exists(PK)"),
				ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
			}})
			return tx.items, nil
		},
		Cancelled: func(reasons []types.CancellationReason) error {
			if tx.failed(reasons, condTopUp) {
				return topUpDone{tx.old(reasons, condTopUp)}
			}
			return nil
		},
	}, r.Reason)
	var done topUpDone
	if errors.As(err, &done) {
		if err := unmarshal(done.record, &rec); err != nil {
			return TopUpResult{}, err
		}
		return s.topUpReplay(ctx, r, rec)
	}
	if err != nil {
		return TopUpResult{}, err
	}
	return TopUpResult{RequestID: r.RequestID, Wallet: w, Entry: e}, nil
}

// topUpReplay answers a request whose id rec shows applied: the first
// run's ledger entry and the wallet now, or IDEMPOTENCY_KEY_REUSED when r
// asks for something else than that run did.
func (s *Store) topUpReplay(ctx context.Context, r TopUpRequest, rec topUpRecord) (TopUpResult, error) {
	if rec.Credits != r.Credits || rec.Reason != r.Reason {
		return TopUpResult{}, gifting.Errorf(gifting.CodeIdempotencyMismatch,
			"the request id %s already added %d credits (reason %s) on %s; use a new request id for a new top-up",
			strconv.Quote(r.RequestID), rec.Credits, strconv.Quote(rec.Reason), rec.CreatedAt.Format(time.RFC3339))
	}
	var entry gifting.LedgerEntry
	found, err := s.get(ctx, orgPK(r.OrgID), ledgerSK(rec.EntryID), &entry)
	if err != nil {
		return TopUpResult{}, err
	}
	if !found {
		return TopUpResult{}, fmt.Errorf("top-up %s of %s: ledger entry %s is missing", r.RequestID, r.OrgID, rec.EntryID)
	}
	w, err := s.Wallet(ctx, r.OrgID)
	if err != nil {
		return TopUpResult{}, err
	}
	return TopUpResult{RequestID: r.RequestID, Replayed: true, Wallet: w, Entry: entry}, nil
}
