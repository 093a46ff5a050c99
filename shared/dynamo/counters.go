package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Counter names. A counter is kept in the same transaction as the writes it
// counts, so list totals never need a read of the whole collection.
const (
	// counterLedger is no longer written: the wallet counts the ledger
	// entries written since (walletEntries); the counter holds the count of
	// those written before, read beside it.
	counterLedger    = "LEDGER"
	counterPersonas  = "ICP"
	counterAudiences = "AUDIENCE"
	counterEvents    = "EVENT"
)

// counterItem is the stored form of a counter.
type counterItem struct {
	N int64 `json:"n"`
	// Pend (COUNT#CONTACT only) counts the import chunks whose writes
	// may have begun and whose count has not been added yet: while it is
	// not zero, n may be short of the contacts (CommitCounts).
	Pend int64 `json:"pend,omitempty"`
}

// counterAdd is the transaction item that adds delta to counter name of org.
// A missing counter starts at zero.
func (s *Store) counterAdd(org, name string, delta int64) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(org), counterSK(name)),
		UpdateExpression:          aws.String("ADD n :d"),
		ExpressionAttributeValues: item{":d": num(delta)},
	}}
}

// counter reads counter name of org; a missing counter is zero.
func (s *Store) counter(ctx context.Context, org, name string) (int64, error) {
	var c counterItem
	if _, err := s.get(ctx, orgPK(org), counterSK(name), &c); err != nil {
		return 0, fmt.Errorf("counter %s: %w", name, err)
	}
	return c.N, nil
}
