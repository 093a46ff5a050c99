package streams

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/giftcampaign/service/shared/dynamo"
)

// Reader reads the table's stream the way the worker's event source
// mapping does in AWS (new change records only, each organization's in
// order and organizations side by side, a record given again until its
// handler succeeds): the local runner's and
// the tests' delivery path.
type Reader struct {
	DB      *dynamodb.Client
	Streams *dynamodbstreams.Client
	Table   string
	Handle  dynamo.ChangeHandler
	Log     *slog.Logger
	// Every is the pause between polls of a shard with nothing new.
	Every time.Duration
}

// Run reads the stream from its oldest record until ctx ends.
func (r *Reader) Run(ctx context.Context) error {
	desc, err := r.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &r.Table})
	if err != nil {
		return fmt.Errorf("describe table: %w", err)
	}
	arn := desc.Table.LatestStreamArn
	if arn == nil {
		return errors.New("the table has no stream")
	}
	orgs := &lanes{ctx: ctx, r: r, byOrg: map[string]chan dynamo.ChangeRecord{}}
	defer orgs.wg.Wait()
	iters := map[string]*string{} // open shards' iterators
	done := map[string]bool{}
	for ctx.Err() == nil {
		s, err := r.Streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
		if err != nil {
			r.pause(ctx, err)
			continue
		}
		for _, sh := range s.StreamDescription.Shards {
			id := *sh.ShardId
			if _, open := iters[id]; open || done[id] {
				continue
			}
			it, err := r.Streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
				StreamArn: arn, ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon})
			if err != nil {
				r.pause(ctx, err)
				continue
			}
			iters[id] = it.ShardIterator
		}
		idle := true
		for id, it := range iters {
			out, err := r.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
			if err != nil {
				r.pause(ctx, err)
				delete(iters, id) // a fresh iterator next round
				continue
			}
			for _, rec := range out.Records {
				if rec.Dynamodb == nil || rec.EventName != streamtypes.OperationTypeInsert {
					continue
				}
				if cr, ok := dynamo.ChangeRecordOf(fromStream(rec.Dynamodb.NewImage)); ok {
					orgs.add(cr)
				}
			}
			if len(out.Records) > 0 {
				idle = false
			}
			if out.NextShardIterator == nil {
				delete(iters, id)
				done[id] = true
			} else {
				iters[id] = out.NextShardIterator
			}
		}
		if idle {
			r.pause(ctx, nil)
		}
	}
	return nil
}

// laneDepth is how many records an organization's lane holds before the
// reader waits for it.
const laneDepth = 1024

// lanes hand each organization's change records, in order, to a goroutine
// of the organization's own, which gives a record again until its handler
// succeeds: one organization's slow receiver or burst of changes holds
// back no other's webhooks, as the worker's event source mapping in AWS
// (ParallelizationFactor, records of one partition key in order) and
// dynamo.HandleChanges within a batch do.
type lanes struct {
	ctx   context.Context
	r     *Reader
	wg    sync.WaitGroup
	byOrg map[string]chan dynamo.ChangeRecord
}

// add queues cr on its organization's lane, starting the lane if needed.
func (l *lanes) add(cr dynamo.ChangeRecord) {
	q := l.byOrg[cr.OrgID]
	if q == nil {
		q = make(chan dynamo.ChangeRecord, laneDepth)
		l.byOrg[cr.OrgID] = q
		l.wg.Go(func() { l.run(q) })
	}
	select {
	case q <- cr:
	case <-l.ctx.Done():
	}
}

// run hands the records of one lane on, one after another, until ctx ends.
func (l *lanes) run(q chan dynamo.ChangeRecord) {
	for {
		select {
		case <-l.ctx.Done():
			return
		case cr := <-q:
			for l.r.Handle(l.ctx, cr) != nil && l.ctx.Err() == nil {
				l.r.pause(l.ctx, nil)
			}
		}
	}
}

func (r *Reader) pause(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil && r.Log != nil {
		r.Log.WarnContext(ctx, "read the table's stream", slog.String("error", err.Error()))
	}
	select {
	case <-ctx.Done():
	case <-time.After(r.Every):
	}
}

// fromStream converts a stream image to the table's attribute values (the
// kinds a change record holds: strings, numbers, lists).
func fromStream(img map[string]streamtypes.AttributeValue) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{}
	for k, v := range img {
		if av := fromStreamValue(v); av != nil {
			out[k] = av
		}
	}
	return out
}

func fromStreamValue(v streamtypes.AttributeValue) types.AttributeValue {
	switch v := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return &types.AttributeValueMemberS{Value: v.Value}
	case *streamtypes.AttributeValueMemberN:
		return &types.AttributeValueMemberN{Value: v.Value}
	case *streamtypes.AttributeValueMemberL:
		l := make([]types.AttributeValue, 0, len(v.Value))
		for _, e := range v.Value {
			if av := fromStreamValue(e); av != nil {
				l = append(l, av)
			}
		}
		return &types.AttributeValueMemberL{Value: l}
	}
	return nil
}
