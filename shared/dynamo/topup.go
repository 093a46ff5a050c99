package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/wallet"
)

// topUpRecord is the item that marks an operator's request id as applied
// (TOPUP#<requestId> under the organization, wallet.TopUpRecord). It is
// written in the transaction of the top-up itself and has no TTL.
type topUpRecord struct {
	RequestID string    `json:"requestId"`
	EntryID   string    `json:"entryId"`
	Credits   int64     `json:"credits"`
	Reason    string    `json:"reason,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

func (r topUpRecord) record() wallet.TopUpRecord {
	return wallet.TopUpRecord{RequestID: r.RequestID, EntryID: r.EntryID, Credits: r.Credits, Reason: r.Reason, CreatedAt: r.CreatedAt}
}

// TopUpRecord reads the record of an applied request id (wallet.Store).
func (s *Store) TopUpRecord(ctx context.Context, orgID, requestID string) (wallet.TopUpRecord, bool, error) {
	var rec topUpRecord
	found, err := s.get(ctx, orgPK(orgID), topUpSK(requestID), &rec)
	return rec.record(), found, err
}

// topUpRecordPut is the transaction item that writes rec, on the condition
// that no run applied its request id first.
func (s *Store) topUpRecordPut(orgID string, rec wallet.TopUpRecord) (types.TransactWriteItem, error) {
	it, err := withKey(topUpRecord{RequestID: rec.RequestID, EntryID: rec.EntryID, Credits: rec.Credits, Reason: rec.Reason,
		CreatedAt: rec.CreatedAt}, map[string]string{"PK": orgPK(orgID), "SK": topUpSK(rec.RequestID)})
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: &s.table, Item: it,
		ConditionExpression:                 aws.String("attribute_not_exists(PK)"),
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// topUpApplied maps a cancellation of tx, whose item condTopUp is a
// top-up's record, to wallet.ErrRequestApplied with the record of the run
// that applied the request id first.
func topUpApplied(tx *txn, reasons []types.CancellationReason) error {
	if !tx.failed(reasons, condTopUp) {
		return nil
	}
	var rec topUpRecord
	if err := unmarshal(tx.old(reasons, condTopUp), &rec); err != nil {
		return err
	}
	return &wallet.RequestApplied{Record: rec.record()}
}
