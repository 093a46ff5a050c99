package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// stepServiceOrders names the operator keys' step of `admin migrate`.
const stepServiceOrders = "service-orders"

// migrateServiceOrders gives the service orders of org written before
// decision 0012 the operator's keys (serviceOrderKeys): the lookup on
// each, the queue's on the open ones. It reads the organization's orders
// (its table partition, SK begins_with ORDER#, filtered to the service
// orders missing a key) and sets the keys on each, conditioned on the
// order's version read: an order written since was keyed by that write.
// A second run finds nothing to change. Run it once the deployment that
// writes the keys has finished.
func (s *Store) migrateServiceOrders(ctx context.Context, orgID string) (MigrationResult, error) {
	var r MigrationResult
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		FilterExpression: aws.String("fulfiller = :svc AND (attribute_not_exists(pg) OR " +
			"(#st = :open AND attribute_not_exists(dueShard)))"),
		ExpressionAttributeNames: map[string]string{"#st": "status"},
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(orderPrefix),
			":svc": str("service"), ":open": str("open")},
		ConsistentRead: aws.Bool(true),
	}
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		res, err := p.NextPage(ctx)
		if err != nil {
			return r, fmt.Errorf("query orders: %w", err)
		}
		for _, it := range res.Items {
			changed, err := s.keyServiceOrder(ctx, it)
			if err != nil {
				return r, err
			}
			if changed {
				r.Changed++
			}
		}
	}
	return r, nil
}

// keyServiceOrder sets the operator's keys on the order it, conditioned on
// its version; false when the order changed since read.
func (s *Store) keyServiceOrder(ctx context.Context, it item) (bool, error) {
	so, err := decodeOrder(it)
	if err != nil {
		return false, err
	}
	keys := serviceOrderKeys(so.Order)
	names := slices.Sorted(maps.Keys(keys))
	sets := make([]string, len(names))
	values := item{":ver": num(so.Version)}
	for i, n := range names {
		sets[i] = n + " = :" + n
		values[":"+n] = str(keys[n])
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: key(attrS(it, "PK"), attrS(it, "SK")),
		UpdateExpression:          aws.String("SET " + strings.Join(sets, ", ")),
		ConditionExpression:       aws.String("ver = :ver"),
		ExpressionAttributeValues: values})
	var cond *types.ConditionalCheckFailedException
	if errors.As(err, &cond) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("key service order: %w", err)
	}
	return true, nil
}
