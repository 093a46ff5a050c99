package streams

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/giftcampaign/service/shared/dynamo"
)

// Reader reads the table's stream the way the worker's event source
// mapping does in AWS (new change records only, in order per shard, a
// record given again until its handler succeeds): the local runner's and
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
				cr, ok := dynamo.ChangeRecordOf(fromStream(rec.Dynamodb.NewImage))
				if !ok {
					continue
				}
				for r.Handle(ctx, cr) != nil && ctx.Err() == nil {
					r.pause(ctx, nil)
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
