package dynamo

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// slimQuery is the query of one partition of the Slim index (one large
// collection: an organization's contacts or campaigns, an audience's
// members), in sort-key order or reversed.
func (s *Store) slimQuery(lpk string, forward bool) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(indexSlim),
		KeyConditionExpression:    aws.String("LPK = :lpk"),
		ExpressionAttributeValues: item{":lpk": str(lpk)},
		ScanIndexForward:          aws.Bool(forward),
	}
}

// pageStart is skipTo over the Slim partition lpk in order forward, up to
// the entry page p starts after (its Offset-th), returning that entry's
// whole key and p's Offset, or nil when the partition ends first. When
// total, the partition's exact size (negative when no exact size is
// known), puts that entry nearer the far end (gifting.PageRequest.
// FromFarEnd), it walks from there instead: the last page of 100,000
// walks about a page's entries, not 100,000. Both walks find the same
// entry when the partition holds total entries, so the page read after it
// is the same; when the far walk finds fewer (an index write not visible
// yet, a total that is off), it walks from the near end, as always.
// A walk costs the entries it passes (about 1 read unit per 40), not the
// items.
func (s *Store) pageStart(ctx context.Context, lpk string, forward bool, p gifting.PageRequest, total int) (item, int, error) {
	if walk, ok := p.FromFarEnd(total); ok {
		at, k, err := s.skipTo(ctx, s.slimQuery(lpk, !forward), walk)
		if err != nil || (at != nil && k == walk) {
			return at, p.Offset(), err
		}
	}
	return s.skipTo(ctx, s.slimQuery(lpk, forward), p.Offset())
}

// skipEntries walks up to n entries of the Slim query in, counting them
// (Select COUNT: billed as reading them, but no entry comes back, so a
// deep skip allocates nothing per entry), and returns the LSK of the n-th
// and how many it walked: fewer than n, with last "", when the query ends
// first; n with last "" when the n-th was the query's last entry.
func (s *Store) skipEntries(ctx context.Context, in *dynamodb.QueryInput, n int) (last string, skipped int, err error) {
	at, skipped, err := s.skipTo(ctx, in, n)
	return attrS(at, "LSK"), skipped, err
}

// skipTo is skipEntries returning the whole key of the n-th entry (the
// index's and the table's keys: a Query's ExclusiveStartKey to start
// right after it), nil when the query ends first or at it.
func (s *Store) skipTo(ctx context.Context, in *dynamodb.QueryInput, n int) (at item, skipped int, err error) {
	in.Select = types.SelectCount
	for skipped < n {
		in.Limit = aws.Int32(int32(min(n-skipped, math.MaxInt32)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, 0, fmt.Errorf("skip %s: %w", attrS(in.ExpressionAttributeValues, ":lpk"), err)
		}
		skipped += int(res.Count)
		if res.LastEvaluatedKey == nil {
			return nil, skipped, nil
		}
		at = res.LastEvaluatedKey
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return at, skipped, nil
}

// slimKey is a Slim entry's keys: the table's sort key of its item and
// its own sort key in the Slim partition.
type slimKey struct{ SK, LSK string }

// slimKeysUpTo returns the keys of the first n entries of the Slim
// partition lpk (fewer when it holds fewer), in sort-key order or
// reversed, reading keys only: about 1 read unit per 40 entries.
func (s *Store) slimKeysUpTo(ctx context.Context, lpk string, forward bool, n int) ([]slimKey, error) {
	in := s.slimQuery(lpk, forward)
	in.ProjectionExpression = aws.String("SK, LSK")
	return s.keysUpTo(ctx, in, n)
}

// keysUpTo returns the SK and LSK of the first n entries query in reads
// (fewer when there are fewer), paging on.
func (s *Store) keysUpTo(ctx context.Context, in *dynamodb.QueryInput, n int) ([]slimKey, error) {
	keys := make([]slimKey, 0, n)
	for len(keys) < n {
		in.Limit = aws.Int32(int32(n - len(keys)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", attrS(in.ExpressionAttributeValues, ":lpk"), err)
		}
		for _, it := range res.Items {
			keys = append(keys, slimKey{SK: attrS(it, "SK"), LSK: attrS(it, "LSK")})
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return keys, nil
}

// tableSKs are the table sort keys of keys.
func tableSKs(keys []slimKey) []string {
	sks := make([]string, len(keys))
	for i, k := range keys {
		sks[i] = k.SK
	}
	return sks
}

// filterTerms keeps, of a Slim query's entries, those whose search text
// (srch) contains every term; no terms keep all. The Slim free-text search
// of contacts and of audience members.
func filterTerms(in *dynamodb.QueryInput, terms []string) {
	if len(terms) == 0 {
		return
	}
	conds := make([]string, len(terms))
	for i, t := range terms {
		name := fmt.Sprintf(":t%d", i)
		conds[i] = "contains(srch, " + name + ")"
		in.ExpressionAttributeValues[name] = str(t)
	}
	in.FilterExpression = aws.String(strings.Join(conds, " AND "))
}
