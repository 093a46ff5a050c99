package streams

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/giftcampaign/service/shared/dynamo"
)

// Reader reads the table's stream the way the worker's event source
// mapping does in AWS (new change records only, each organization's in
// order and organizations side by side, a record given again until its
// handler succeeds, and its place in the stream kept across restarts:
// checkpoint.go): the local runner's and the tests' delivery path.
type Reader struct {
	DB      *dynamodb.Client
	Streams *dynamodbstreams.Client
	Table   string
	Handle  dynamo.ChangeHandler
	Log     *slog.Logger
	// Every is the pause between polls of a shard with nothing new.
	Every time.Duration
}

// Run reads the stream until ctx ends: from each shard's checkpoint, or
// from its oldest record when it has none.
func (r *Reader) Run(ctx context.Context) error {
	desc, err := r.DB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &r.Table})
	if err != nil {
		return fmt.Errorf("describe table: %w", err)
	}
	arn := desc.Table.LatestStreamArn
	if arn == nil {
		return errors.New("the table has no stream")
	}
	run := &run{r: r, arn: arn, cp: checkpoints{db: r.DB, table: r.Table, arn: *arn},
		iters: map[string]*string{}, done: map[string]bool{}}
	run.orgs = &lanes{ctx: ctx, r: r, marks: &run.marks, byOrg: map[string]chan laneRecord{}}
	defer run.close(ctx)
	for ctx.Err() == nil {
		s, err := r.Streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
		if err != nil {
			r.pause(ctx, err)
			continue
		}
		for _, sh := range s.StreamDescription.Shards {
			if id := *sh.ShardId; run.iters[id] == nil && !run.done[id] {
				run.open(ctx, id)
			}
		}
		idle := true
		for id, it := range run.iters {
			if run.read(ctx, id, it) {
				idle = false
			}
		}
		run.checkpoint(ctx)
		if idle {
			r.pause(ctx, nil)
		}
	}
	return nil
}

// run is one Run's state: each open shard's iterator, the shards read to
// their end, the records read and not yet passed by a checkpoint.
type run struct {
	r     *Reader
	arn   *string
	cp    checkpoints
	orgs  *lanes
	iters map[string]*string
	done  map[string]bool
	marks watermarks
	// unsaved are checkpoints the watermarks moved past whose save has not
	// succeeded yet (the reader stopped during it): close saves them.
	unsaved map[string]string
}

// open gets shard id's iterator: after its checkpoint, or from its oldest
// record when it has none (or the stream no longer holds it).
func (u *run) open(ctx context.Context, id string) {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: u.arn, ShardId: &id, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon}
	seq, err := u.cp.load(ctx, id)
	if err != nil {
		u.r.pause(ctx, err)
		return
	}
	if validSeq(seq) {
		after := *in
		after.ShardIteratorType, after.SequenceNumber = streamtypes.ShardIteratorTypeAfterSequenceNumber, &seq
		if it, err := u.r.Streams.GetShardIterator(ctx, &after); err == nil {
			u.iters[id] = it.ShardIterator
			return
		}
	}
	it, err := u.r.Streams.GetShardIterator(ctx, in)
	if err != nil {
		u.r.pause(ctx, err)
		return
	}
	u.iters[id] = it.ShardIterator
}

// read reads one batch of shard id from iterator it, hands its change
// records to their organizations' lanes, and reports whether it held any
// record.
func (u *run) read(ctx context.Context, id string, it *string) bool {
	out, err := u.r.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it})
	if err != nil {
		u.r.pause(ctx, err)
		delete(u.iters, id) // a fresh iterator next round, from the checkpoint
		return false
	}
	for _, rec := range out.Records {
		if rec.Dynamodb == nil {
			continue
		}
		seq := aws.ToString(rec.Dynamodb.SequenceNumber)
		var cr dynamo.ChangeRecord
		ok := false
		if rec.EventName == streamtypes.OperationTypeInsert {
			cr, ok = dynamo.ChangeRecordOf(fromStream(rec.Dynamodb.NewImage))
		}
		m := u.marks.read(id, seq, ok)
		if ok {
			u.orgs.add(laneRecord{cr, m})
		}
	}
	if out.NextShardIterator == nil {
		delete(u.iters, id)
		u.done[id] = true
	} else {
		u.iters[id] = out.NextShardIterator
	}
	return len(out.Records) > 0
}

// checkpoint saves each shard's checkpoint that moved past a handled
// change record.
func (u *run) checkpoint(ctx context.Context) {
	if u.unsaved == nil {
		u.unsaved = map[string]string{}
	}
	maps.Copy(u.unsaved, u.marks.advance())
	for shard, seq := range u.unsaved {
		if err := u.cp.save(ctx, shard, seq); err != nil {
			if ctx.Err() == nil {
				u.r.pause(ctx, err)
			}
			continue
		}
		delete(u.unsaved, shard)
	}
}

// close waits for the lanes to stop, then saves the checkpoints of what
// they handled.
func (u *run) close(ctx context.Context) {
	u.orgs.wg.Wait()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	u.checkpoint(ctx)
}

// laneDepth is how many records an organization's lane holds before the
// reader waits for it.
const laneDepth = 1024

// lanes hand each organization's change records, in order, to a goroutine
// of the organization's own, which gives a record again until its handler
// succeeds: one organization's slow receiver or burst of changes holds
// back no other's webhooks, as the worker's event source mapping in AWS
// (ParallelizationFactor, records of one partition key in order) and
// webhook.HandleRecords within a batch do.
type lanes struct {
	ctx   context.Context
	r     *Reader
	marks *watermarks
	wg    sync.WaitGroup
	byOrg map[string]chan laneRecord
}

// laneRecord is a change record on its way, with its mark in the
// watermarks.
type laneRecord struct {
	cr   dynamo.ChangeRecord
	mark *mark
}

// add queues lr on its organization's lane, starting the lane if needed.
func (l *lanes) add(lr laneRecord) {
	q := l.byOrg[lr.cr.OrgID]
	if q == nil {
		q = make(chan laneRecord, laneDepth)
		l.byOrg[lr.cr.OrgID] = q
		l.wg.Go(func() { l.run(q) })
	}
	select {
	case q <- lr:
	case <-l.ctx.Done():
	}
}

// run hands the records of one lane on, one after another, until ctx ends;
// a record is marked handled once its handler succeeded.
func (l *lanes) run(q chan laneRecord) {
	for {
		select {
		case <-l.ctx.Done():
			return
		case lr := <-q:
			for {
				if err := l.r.Handle(l.ctx, lr.cr); err == nil {
					l.marks.handled(lr.mark)
					break
				}
				if l.ctx.Err() != nil {
					return
				}
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
