package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/wallet"
)

// An organization's usage of a month is one item (USAGE#<YYYY-MM> under
// the organization) of counters, each added to by the write it counts in
// that write's own transaction: a recipient's creation, a balance change's
// ledger entry, an email's record as sent. Reading a month is one GetItem,
// and a counter cannot drift from what it counts: the transaction that
// would count twice or not at all is the one that would write twice or
// not at all. The item is created by its first ADD.

// The usage item's counters (the attribute names are access.Usage's JSON
// names, so the item reads back with unmarshal).
const (
	usageRecipients = "recipientsAdded"
	usageSpent      = "creditsSpent"
	usageRefunded   = "creditsRefunded"
	usageToppedUp   = "creditsToppedUp"
	usageEmails     = "emailsSent"
	usageCalls      = "apiCalls"
)

// usageAdd is the transaction item that adds counts to orgID's usage of
// the month of at. Within one transaction it is the only write of the
// usage item: DynamoDB refuses two operations on one item there.
func (s *Store) usageAdd(orgID string, at time.Time, counts map[string]int64) types.TransactWriteItem {
	month := access.MonthOf(at)
	names := slices.Sorted(maps.Keys(counts))
	adds := make([]string, len(names))
	values := item{":org": str(orgID), ":month": str(month)}
	attrs := map[string]string{"#month": "month"}
	// Every counter goes by a name: some event names (expired, …) may be
	// DynamoDB reserved words.
	for i, n := range names {
		adds[i] = fmt.Sprintf("#c%d :c%d", i, i)
		attrs[fmt.Sprintf("#c%d", i)] = n
		values[fmt.Sprintf(":c%d", i)] = num(counts[n])
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), usageSK(month)),
		UpdateExpression:          aws.String("SET organizationId = :org, #month = :month ADD " + strings.Join(adds, ", ")),
		ExpressionAttributeNames:  attrs,
		ExpressionAttributeValues: values,
	}}
}

// entryUsage is what a ledger entry adds to its month's usage, and
// recipients the recipients its transaction creates.
func entryUsage(e wallet.Entry, recipients int64) map[string]int64 {
	counts := map[string]int64{}
	switch e.Type {
	case wallet.Debit:
		counts[usageSpent] = e.Amount
	case wallet.Refund:
		counts[usageRefunded] = e.Amount
	case wallet.TopUp:
		counts[usageToppedUp] = e.Amount
	}
	if recipients != 0 {
		counts[usageRecipients] = recipients
	}
	return counts
}

// Usage reads orgID's usage of month (access.Store): one strongly
// consistent GetItem; zeros when nothing was counted that month.
func (s *Store) Usage(ctx context.Context, orgID, month string) (access.Usage, error) {
	var u access.Usage
	if _, err := s.get(ctx, orgPK(orgID), usageSK(month), &u); err != nil {
		return access.Usage{}, err
	}
	u.OrgID, u.Month = orgID, month
	return u, nil
}

// CountCall adds one API call to orgID's usage of month (access.Store):
// one UpdateItem ADD, one write unit a call.
func (s *Store) CountCall(ctx context.Context, orgID, month string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table,
		Key:                       key(orgPK(orgID), usageSK(month)),
		UpdateExpression:          aws.String("SET organizationId = :org, #month = :month ADD " + usageCalls + " :one"),
		ExpressionAttributeNames:  map[string]string{"#month": "month"},
		ExpressionAttributeValues: item{":org": str(orgID), ":month": str(month), ":one": num(1)}})
	if err != nil {
		return fmt.Errorf("count api call: %w", err)
	}
	return nil
}
