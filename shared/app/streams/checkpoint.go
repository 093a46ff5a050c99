package streams

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The reader keeps its place in the stream as AWS's event source mapping
// does: a checkpoint per shard, the sequence number of the last record it
// handled, in an item of the table itself (the partition checkpointPK, one
// item per shard, naming the stream it belongs to). A reader that starts
// again (the local runner restarted, a process of `make chaos` killed)
// resumes after it instead of reading the stream from its oldest record.
// The item lives and goes with the table's data, so DynamoDB Local's
// in-memory table starts afresh with it; a checkpoint of another stream
// (the table made again) is passed over.
//
// A checkpoint moves only past records that were handled (watermark): the
// records of one shard go to different organizations' lanes and finish out
// of order, so it stops at the first one still in a lane, and a record is
// given again after a restart rather than lost. Saving a checkpoint writes
// the table, which adds a record to the stream; so it is saved only once
// it has passed a change record, never for passing its own records.

// checkpointPK is the partition of the reader's checkpoints; the local
// runner's alone (in AWS the event source mapping keeps its own).
const checkpointPK = "LOCAL#STREAM"

// checkpoints reads and writes the reader's checkpoint items.
type checkpoints struct {
	db    *dynamodb.Client
	table string
	arn   string
}

// load returns the sequence number after which to read shard, "" when
// it has no checkpoint of this stream.
func (c checkpoints) load(ctx context.Context, shard string) (string, error) {
	out, err := c.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &c.table, ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: checkpointPK}, "SK": &types.AttributeValueMemberS{Value: shard}},
	})
	if err != nil {
		return "", fmt.Errorf("read the stream checkpoint: %w", err)
	}
	arn, _ := out.Item["arn"].(*types.AttributeValueMemberS)
	seq, _ := out.Item["seq"].(*types.AttributeValueMemberS)
	if arn == nil || seq == nil || arn.Value != c.arn {
		return "", nil
	}
	return seq.Value, nil
}

// save records seq as shard's checkpoint, unless one further on is
// recorded already (another process reading the same stream). The
// sequence number is kept as the stream wrote it (GetShardIterator wants
// its leading zeros) and as a number (ord), which orders checkpoints.
func (c checkpoints) save(ctx context.Context, shard, seq string) error {
	ord := &types.AttributeValueMemberN{Value: seq}
	_, err := c.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &c.table,
		Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: checkpointPK}, "SK": &types.AttributeValueMemberS{Value: shard},
			"arn": &types.AttributeValueMemberS{Value: c.arn}, "seq": &types.AttributeValueMemberS{Value: seq}, "ord": ord,
		},
		ConditionExpression:       aws.String("attribute_not_exists(PK) OR arn <> :arn OR attribute_not_exists(ord) OR ord < :ord"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":arn": &types.AttributeValueMemberS{Value: c.arn}, ":ord": ord},
	})
	var cond *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &cond) {
		return fmt.Errorf("save the stream checkpoint: %w", err)
	}
	return nil
}

// mark is one record read from a shard: done once handled.
type mark struct {
	seq    string
	change bool // a change record (its handling may end after later ones')
	done   bool
}

// watermarks are the records of each shard read and not yet passed by its
// checkpoint, in stream order.
type watermarks struct {
	mu     sync.Mutex
	shards map[string][]*mark
}

// read adds a record of shard; records that are not change records are
// done as they are read.
func (w *watermarks) read(shard, seq string, change bool) *mark {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.shards == nil {
		w.shards = map[string][]*mark{}
	}
	m := &mark{seq: seq, change: change, done: !change}
	w.shards[shard] = append(w.shards[shard], m)
	return m
}

// handled marks m done.
func (w *watermarks) handled(m *mark) {
	w.mu.Lock()
	defer w.mu.Unlock()
	m.done = true
}

// advance drops the leading done records of each shard and returns, by
// shard, the last one dropped, for the shards where a change record was
// among them (what is worth a checkpoint write).
func (w *watermarks) advance() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]string{}
	for shard, ms := range w.shards {
		n, change := 0, false
		for n < len(ms) && ms[n].done {
			change = change || ms[n].change
			n++
		}
		if n == 0 {
			continue
		}
		if change {
			out[shard] = ms[n-1].seq
		}
		w.shards[shard] = ms[n:]
	}
	return out
}

// validSeq reports whether s is a stream sequence number (digits), which
// the checkpoint's ord attribute holds as a number.
func validSeq(s string) bool {
	_, ok := new(big.Int).SetString(s, 10)
	return ok && s != ""
}
