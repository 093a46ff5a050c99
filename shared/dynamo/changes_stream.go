package dynamo

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"
)

// ChangeHandler is what receives committed change records: the service's
// DeliverChanges. An error makes the reader give the record again.
type ChangeHandler func(ctx context.Context, r ChangeRecord) error

// changeWorkers is how many organizations' change records HandleChanges
// hands on at once.
const changeWorkers = 16

// HandleChanges hands recs to h: one organization's records one after
// another, in the order given, so its webhooks keep commit order; different
// organizations' side by side, changeWorkers at once. A record's handler
// waits for its deliveries' first attempts (up to a receiver's timeout), so
// taking every record in turn would let one organization's slow or silent
// receiver, or its burst of changes, hold back every other organization's
// webhooks. It returns each record's error, aligned with recs. After an
// organization's record fails, its later records are not handed on and
// report that error too, so they are given again after it, in order.
func HandleChanges(ctx context.Context, h ChangeHandler, recs []ChangeRecord) []error {
	errs := make([]error, len(recs))
	byOrg := map[string][]int{}
	var orgs []string
	for i, r := range recs {
		if byOrg[r.OrgID] == nil {
			orgs = append(orgs, r.OrgID)
		}
		byOrg[r.OrgID] = append(byOrg[r.OrgID], i)
	}
	var g errgroup.Group
	g.SetLimit(changeWorkers)
	for _, org := range orgs {
		g.Go(func() error {
			var failed error
			for _, i := range byOrg[org] {
				if failed == nil {
					failed = h(ctx, recs[i])
				}
				errs[i] = failed
			}
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through errs
	return errs
}

// ChangeRecordOfLambda decodes the new image of a stream record as the
// worker's event source mapping delivers it; ok is false for an image that
// is not a change record.
func ChangeRecordOfLambda(img map[string]events.DynamoDBAttributeValue) (ChangeRecord, bool) {
	out := item{}
	for k, v := range img {
		if av := fromLambdaValue(v); av != nil {
			out[k] = av
		}
	}
	return ChangeRecordOf(out)
}

func fromLambdaValue(v events.DynamoDBAttributeValue) types.AttributeValue {
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}
	case events.DataTypeList:
		l := make([]types.AttributeValue, 0, len(v.List()))
		for _, e := range v.List() {
			if av := fromLambdaValue(e); av != nil {
				l = append(l, av)
			}
		}
		return &types.AttributeValueMemberL{Value: l}
	}
	return nil
}
