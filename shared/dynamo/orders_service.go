package dynamo

import (
	"context"
	"encoding/base64"
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// The operator's orders (issue 31 item 4; decision 0012): the open orders
// of the service catalog's gifts, of every organization, read without a
// scan. Two sparse keys on the order item, in indexes that were already
// there, written by the same put that opens, ships or cancels the order
// (orderAttrs), so they are always the order's:
//
//   - the queue: dueShard = SVCQ#<0..3> (a hash of the order id) and
//     dueAt = <createdAt>#<orderId> in the Due index, only while the order
//     is open; the scheduler reads only its own DUE#<n> partitions, so it
//     never sees them. Four partitions so no single index partition takes
//     every service claim and shipment of the service.
//   - the lookup: pg = SVCORD#<orderId> in the keys-only Pages index, for
//     the whole life of a service order: the operator's shipment file names
//     an order by its id alone, and a row sent again must find its order
//     after it left the queue (to be reported unchanged, not unknown). The
//     key never changes, so the order's later puts write no index entry.

// serviceQueueShards is the number of partitions of the operator's queue.
const serviceQueueShards = 4

// serviceQueuePK is the Due index partition of shard of the queue.
func serviceQueuePK(shard int) string { return "SVCQ#" + strconv.Itoa(shard) }

// serviceQueueShard is the queue's shard of an order: fixed for the order.
func serviceQueueShard(orderID string) int {
	h := fnv.New32a()
	h.Write([]byte(orderID))
	return int(h.Sum32() % serviceQueueShards)
}

// serviceQueueSK orders the queue by creation, oldest first.
func serviceQueueSK(o fulfilment.Order) string {
	return o.CreatedAt.UTC().Format(dueTimeLayout) + "#" + o.OrderID
}

// serviceOrderPG is the Pages index key that finds a service order by id.
func serviceOrderPG(orderID string) string { return "SVCORD#" + orderID }

// serviceOrderKeys are the operator's keys o carries: the lookup on every
// service order, the queue's while it is open; none on an organization's
// or a sandbox's (fulfilment.Order.OperatorShips).
func serviceOrderKeys(o fulfilment.Order) map[string]string {
	if !o.OperatorShips() {
		return nil
	}
	keys := map[string]string{"pg": serviceOrderPG(o.OrderID)}
	if o.Status == fulfilment.StatusOpen {
		keys["dueShard"] = serviceQueuePK(serviceQueueShard(o.OrderID))
		keys["dueAt"] = serviceQueueSK(o)
	}
	return keys
}

// ServiceOrderOrg is the organization of the service order orderID, in
// any state (fulfilment.ServiceOrders): one Query of the Pages index.
// ErrNoOrder when no service order has that id (an organization's own
// orders included).
func (s *Store) ServiceOrderOrg(ctx context.Context, orderID string) (string, error) {
	if !gifting.ValidID(orderID) {
		return "", fulfilment.ErrNoOrder
	}
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName: &s.table, IndexName: aws.String(indexPages),
		KeyConditionExpression:    aws.String("pg = :pg"),
		ExpressionAttributeValues: item{":pg": str(serviceOrderPG(orderID))},
		Limit:                     aws.Int32(2),
	})
	if err != nil {
		return "", fmt.Errorf("find service order: %w", err)
	}
	if len(out.Items) != 1 {
		return "", fulfilment.ErrNoOrder
	}
	org, ok := strings.CutPrefix(attrS(out.Items[0], "PK"), orgPK(""))
	if !ok || attrS(out.Items[0], "SK") != orderSK(orderID) {
		return "", fulfilment.ErrNoOrder
	}
	return org, nil
}

// queueEntry is one key of the queue as read.
type queueEntry struct {
	shard   int
	sk, org string
	key     item
}

// OpenServiceOrders reads a page of the queue, oldest first
// (fulfilment.ServiceOrders): limit+1 keys of each shard after the
// cursor's position in it (4 Queries), merged by creation, then one
// BatchGetItem per 100 orders of the page (eventually consistent: an
// order shipped a moment ago may still be read open; the use case drops
// it). The cursor is each shard's last key handed out.
func (s *Store) OpenServiceOrders(ctx context.Context, cursor string, limit int) ([]fulfilment.Order, string, error) {
	pos, ok := decodeQueueCursor(cursor)
	if !ok {
		return nil, "", fulfilment.ErrBadCursor
	}
	var all []queueEntry
	for shard := range serviceQueueShards {
		got, err := s.queueShard(ctx, shard, pos[shard], limit+1)
		if err != nil {
			return nil, "", err
		}
		all = append(all, got...)
	}
	slices.SortFunc(all, func(a, b queueEntry) int { return strings.Compare(a.sk, b.sk) })
	more := len(all) > limit
	all = all[:min(len(all), limit)]
	keys := make([]item, len(all))
	for i, e := range all {
		keys[i] = e.key
		pos[e.shard] = e.org + "/" + e.sk
	}
	got, err := s.ordersOfKeys(ctx, keys)
	if err != nil {
		return nil, "", err
	}
	orders, err := decodeOrders(got)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if more {
		next = base64.RawURLEncoding.EncodeToString([]byte(strings.Join(pos[:], ",")))
	}
	return orders, next, nil
}

// queueShard reads up to n keys of shard after at ("" from the start, else
// <org>/<sort key>).
func (s *Store) queueShard(ctx context.Context, shard int, at string, n int) ([]queueEntry, error) {
	pk := serviceQueuePK(shard)
	in := &dynamodb.QueryInput{TableName: &s.table, IndexName: aws.String(indexDue),
		KeyConditionExpression:    aws.String("dueShard = :pk"),
		ExpressionAttributeValues: item{":pk": str(pk)},
		ProjectionExpression:      aws.String("PK, SK, dueAt"),
	}
	if org, sk, ok := strings.Cut(at, "/"); ok {
		_, id, _ := strings.Cut(sk, "#")
		in.ExclusiveStartKey = item{"PK": str(orgPK(org)), "SK": str(orderSK(id)), "dueShard": str(pk), "dueAt": str(sk)}
	}
	var out []queueEntry
	for len(out) < n {
		in.Limit = aws.Int32(int32(n - len(out)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("service orders, shard %d: %w", shard, err)
		}
		for _, it := range res.Items {
			org := strings.TrimPrefix(attrS(it, "PK"), orgPK(""))
			out = append(out, queueEntry{shard: shard, sk: attrS(it, "dueAt"), org: org, key: key(attrS(it, "PK"), attrS(it, "SK"))})
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return out, nil
}

// decodeQueueCursor reads a cursor OpenServiceOrders handed out: each
// shard's position, "" when nothing of it was handed out yet.
func decodeQueueCursor(c string) ([serviceQueueShards]string, bool) {
	var pos [serviceQueueShards]string
	if c == "" {
		return pos, true
	}
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return pos, false
	}
	parts := strings.Split(string(raw), ",")
	if len(parts) != serviceQueueShards {
		return pos, false
	}
	for i, p := range parts {
		if p == "" {
			continue
		}
		org, sk, ok := strings.Cut(p, "/")
		at, id, ok2 := strings.Cut(sk, "#")
		if !ok || !ok2 || !gifting.ValidID(org) || !gifting.ValidID(id) || len(at) != len(dueTimeLayout) ||
			serviceQueueShard(id) != i {
			return pos, false
		}
		pos[i] = p
	}
	return pos, true
}
