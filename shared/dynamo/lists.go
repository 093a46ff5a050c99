package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// collection is a listable collection of an organization: the sort-key
// prefix of its items, its Slim partition (every item carries LPK/LSK with
// LSK equal to its sort key) and the counter kept in the transactions that
// create and delete its items.
type collection struct {
	prefix, lpk, counter string
}

// Collections listed through orderedPage.
func personasOf(org string) collection {
	return collection{prefix: icpPrefix, lpk: personasLPK(org), counter: counterPersonas}
}
func audiencesOf(org string) collection {
	return collection{prefix: audiencePrefix, lpk: audiencesLPK(org), counter: counterAudiences}
}
func eventsOf(org string) collection {
	return collection{prefix: eventPrefix, lpk: eventsLPK(org), counter: counterEvents}
}
func campaignsOf(org string) collection {
	return collection{prefix: campaignPrefix, lpk: campaignsLPK(org), counter: counterCampaigns}
}

// orderedPage reads one page of collection c of org in creation order (ids
// are ULIDs, so the sort keys are in that order), and its counter. A deep
// page first skips in the Slim index, counting keys, from whichever end
// of the collection is nearer the page (pageStart). Cost: the page's
// items, one counter read, and about one read unit per 40 entries
// skipped (at most half the collection).
func (s *Store) orderedPage(ctx context.Context, orgID string, c collection, order gifting.SortOrder, page gifting.PageRequest) ([]item, int, error) {
	total, err := s.counter(ctx, orgID, c.counter)
	if err != nil {
		return nil, 0, err
	}
	forward := order == gifting.Asc
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{
			":pk": str(orgPK(orgID)), ":prefix": str(c.prefix),
		},
		ScanIndexForward: aws.Bool(forward),
		ConsistentRead:   aws.Bool(true),
	}
	out := make([]item, 0, page.Limit)
	if off := page.Offset(); off > 0 {
		if int64(off) >= total {
			return out, int(total), nil
		}
		// The counter is exact (moved in the transactions that create
		// and delete the items), so the page's start may be found from
		// the far end.
		at, _, err := s.pageStart(ctx, c.lpk, forward, page, int(total))
		if err != nil || at == nil {
			return out, int(total), err
		}
		in.ExclusiveStartKey = key(orgPK(orgID), attrS(at, "LSK"))
	}
	for len(out) < page.Limit {
		in.Limit = aws.Int32(int32(page.Limit - len(out)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, 0, fmt.Errorf("query %s: %w", c.prefix, err)
		}
		out = append(out, res.Items...)
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return out, int(total), nil
}

// decodeAll unmarshals items into values of T.
func decodeAll[T any](items []item) ([]T, error) {
	out := make([]T, 0, len(items))
	for _, it := range items {
		var v T
		if err := unmarshal(it, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// listedItem is the stored form of a new item of collection c: v with its
// table key and its Slim entry.
func listedItem(v any, orgID, sk string, c collection) (item, error) {
	return withKey(v, map[string]string{"PK": orgPK(orgID), "SK": sk, "LPK": c.lpk, "LSK": sk})
}

// putCounted writes the new item sk of collection c into org's partition,
// with its Slim entry, and adds one to c's counter in the same transaction.
// It never overwrites.
func (s *Store) putCounted(ctx context.Context, orgID, sk string, c collection, v any) error {
	return s.putCountedWith(ctx, orgID, sk, c, v, nil)
}

// putCountedWith is putCounted with the attributes extra added to the item.
func (s *Store) putCountedWith(ctx context.Context, orgID, sk string, c collection, v any, extra map[string]string) error {
	it, err := listedItem(v, orgID, sk, c)
	if err != nil {
		return err
	}
	for k, v := range extra {
		it[k] = str(v)
	}
	err = s.transactRetrying(ctx, []types.TransactWriteItem{
		{Put: &types.Put{TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		s.counterAdd(orgID, c.counter, 1),
	})
	if err != nil {
		return fmt.Errorf("put %s: %w", keyForError(sk), err)
	}
	return nil
}
