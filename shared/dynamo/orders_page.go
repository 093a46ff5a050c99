package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// Pages of an organization's orders, newest first, O(page): each filter
// reads one partition, from the cursor on.
//
//   - no filter: the table's partition, SK begins_with ORDER#;
//   - status: its Slim partition ORG#<org>#ORD#<status>;
//   - campaign (and status): its Order index partition
//     ORG#<org>#ORDC#<campaign>, by a begins_with on <status># when a
//     status is given (a campaign alone lists by status, then newest).
//
// A cursor is the last order's sort value in that partition: its id, or
// <status>#<id> in a campaign's.

// ordersQuery is the query of f's partition, newest first, and the key a
// query starting right after the order of cursor needs.
type ordersQuery struct {
	in    *dynamodb.QueryInput
	start func(cursor string) (item, bool)
	// cursorOf is the cursor of an order of the page.
	cursorOf func(o fulfilment.Order) string
	// keysOnly: the index holds keys only; the orders are read after.
	keysOnly bool
}

func (s *Store) ordersQuery(orgID string, f fulfilment.Filter) ordersQuery {
	pk := orgPK(orgID)
	idCursor := func(o fulfilment.Order) string { return o.OrderID }
	switch {
	case f.CampaignID != "":
		prefix := ""
		if f.Status != "" {
			prefix = string(f.Status) + "#"
		}
		in := &dynamodb.QueryInput{TableName: &s.table, IndexName: aws.String(indexOrder),
			KeyConditionExpression:    aws.String("OPK = :pk"),
			ExpressionAttributeValues: item{":pk": str(orderCampaignOPK(orgID, f.CampaignID))},
			ScanIndexForward:          aws.Bool(false)}
		if prefix != "" {
			in.KeyConditionExpression = aws.String("OPK = :pk AND begins_with(OSK, :prefix)")
			in.ExpressionAttributeValues[":prefix"] = str(prefix)
		}
		return ordersQuery{in: in, keysOnly: true,
			cursorOf: func(o fulfilment.Order) string { return orderOSK(o.Status, o.OrderID) },
			start: func(c string) (item, bool) {
				st, id, ok := strings.Cut(c, "#")
				if !ok || !fulfilment.Status(st).Valid() || !gifting.ValidID(id) || !strings.HasPrefix(c, prefix) {
					return nil, false
				}
				return item{"PK": str(pk), "SK": str(orderSK(id)), "OPK": str(orderCampaignOPK(orgID, f.CampaignID)), "OSK": str(c)}, true
			}}
	case f.Status != "":
		in := s.slimQuery(ordersLPK(orgID, f.Status), false)
		return ordersQuery{in: in, keysOnly: true, cursorOf: idCursor,
			start: func(c string) (item, bool) {
				return item{"PK": str(pk), "SK": str(orderSK(c)), "LPK": str(ordersLPK(orgID, f.Status)), "LSK": str(c)},
					gifting.ValidID(c)
			}}
	}
	in := &dynamodb.QueryInput{TableName: &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(pk), ":prefix": str(orderPrefix)},
		ScanIndexForward:          aws.Bool(false), ConsistentRead: aws.Bool(false)}
	return ordersQuery{in: in, cursorOf: idCursor,
		start: func(c string) (item, bool) { return key(pk, orderSK(c)), gifting.ValidID(c) }}
}

// OrdersPage reads up to limit orders of orgID matching f after cursor
// (fulfilment.Orders): one Query of limit+1 entries (the one more says
// whether a next page exists), and for an index's keys one BatchGetItem
// of the orders (eventually consistent, half the read units: a list may
// lag a write by a moment).
func (s *Store) OrdersPage(ctx context.Context, orgID string, f fulfilment.Filter, cursor string, limit int) ([]fulfilment.Order, string, error) {
	q := s.ordersQuery(orgID, f)
	if cursor != "" {
		start, ok := q.start(cursor)
		if !ok {
			return nil, "", fulfilment.ErrBadCursor
		}
		q.in.ExclusiveStartKey = start
	}
	q.in.Limit = aws.Int32(int32(limit + 1))
	var got []item
	for len(got) <= limit {
		res, err := s.db.Query(ctx, q.in)
		if err != nil {
			return nil, "", fmt.Errorf("orders page: %w", err)
		}
		got = append(got, res.Items...)
		if res.LastEvaluatedKey == nil {
			break
		}
		q.in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	more := len(got) > limit
	got = got[:min(len(got), limit)]
	if q.keysOnly {
		var err error
		if got, err = s.ordersOfKeys(ctx, got); err != nil {
			return nil, "", err
		}
	}
	orders, err := decodeOrders(got)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if more && len(orders) > 0 {
		next = q.cursorOf(orders[len(orders)-1])
	}
	return orders, next, nil
}

// ordersOfKeys reads the orders of an index page's keys, in the page's
// order (an order gone since is left out).
func (s *Store) ordersOfKeys(ctx context.Context, keys []item) ([]item, error) {
	want := make([]item, len(keys))
	for i, k := range keys {
		want[i] = key(attrS(k, "PK"), attrS(k, "SK"))
	}
	got, err := s.batchGetAs(ctx, want, false)
	if err != nil {
		return nil, err
	}
	bySK := make(map[string]item, len(got))
	for _, it := range got {
		bySK[attrS(it, "SK")] = it
	}
	out := make([]item, 0, len(keys))
	for _, k := range keys {
		if it, ok := bySK[attrS(k, "SK")]; ok {
			out = append(out, it)
		}
	}
	return out, nil
}

// SkipOrders is the cursor after the first n orders of orgID matching f
// (fulfilment.Orders), counting keys only (Select COUNT): a numbered
// page's start costs the skipped keys, not the skipped orders.
func (s *Store) SkipOrders(ctx context.Context, orgID string, f fulfilment.Filter, n int) (string, error) {
	if n <= 0 {
		return "", nil
	}
	q := s.ordersQuery(orgID, f)
	at, skipped, err := s.skipTo(ctx, q.in, n)
	if err != nil || skipped < n || at == nil {
		return "", err
	}
	switch {
	case f.CampaignID != "":
		return attrS(at, "OSK"), nil
	case f.Status != "":
		return attrS(at, "LSK"), nil
	}
	return strings.TrimPrefix(attrS(at, "SK"), orderPrefix), nil
}
