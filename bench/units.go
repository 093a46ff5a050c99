package main

import (
	"context"
	"math"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/dynamo"
)

// DynamoDB Local reports the capacity of single-item and batch requests as
// DynamoDB does, but not that of TransactWriteItems: it leaves out most of
// the items of a transaction (a transaction of 75 puts reports 8 units).
// So the write units of transactions are estimated the way AWS bills them,
// from the requests themselves: 2 units per 1 KB of each item written or
// checked (DynamoDB reads and writes every item twice, to prepare and to
// commit), plus, for a put, 1 unit per 1 KB of each index entry it writes.
// Index entries changed by an update are not counted, nor are cancelled
// transactions; both make the estimate low, not high.

// indexShape is what an index projects, from template.yaml.
type indexShape struct {
	name    string
	keys    []string
	all     bool
	include []string
}

// billing estimates AWS-billed write units of recorded calls.
type billing struct {
	e         *env
	indexes   []indexShape
	tableKeys []string
	// sizes caches item sizes read back for updates and checks.
	sizes map[string]int
}

func newBilling(e *env) (*billing, error) {
	in, err := localstack.TableInput(filepath.Join(e.root, "template.yaml"), e.table)
	if err != nil {
		return nil, err
	}
	b := &billing{e: e, sizes: map[string]int{}}
	for _, k := range in.KeySchema {
		b.tableKeys = append(b.tableKeys, aws.ToString(k.AttributeName))
	}
	for _, ix := range in.GlobalSecondaryIndexes {
		s := indexShape{name: aws.ToString(ix.IndexName), all: ix.Projection.ProjectionType == types.ProjectionTypeAll, include: ix.Projection.NonKeyAttributes}
		for _, k := range ix.KeySchema {
			s.keys = append(s.keys, aws.ToString(k.AttributeName))
		}
		b.indexes = append(b.indexes, s)
	}
	return b, nil
}

// writeUnits returns the write units of calls as AWS would bill them: as
// reported, except transactions, which are estimated.
func (b *billing) writeUnits(ctx context.Context, calls []meter.Call) float64 {
	total := 0.0
	for _, c := range calls {
		if bs, ok := c.Input.(*dynamodb.BatchExecuteStatementInput); ok {
			// Not reported by DynamoDB Local: each insert as the put it
			// is, each update as the item it changes, refused ones
			// included (a failed condition is billed).
			for _, st := range bs.Statements {
				if it, ok := dynamo.InsertedItem(st); ok {
					total += b.putUnits(it)
				} else if k, ok := dynamo.UpdatedKey(st); ok {
					total += kb(b.storedSize(ctx, statementTable(st), k))
				}
			}
			continue
		}
		tw, ok := c.Input.(*dynamodb.TransactWriteItemsInput)
		if !ok {
			total += c.WriteUnits
			continue
		}
		if c.Err != nil {
			continue
		}
		for _, it := range tw.TransactItems {
			switch {
			case it.Put != nil:
				// A transaction bills the item twice, its index entries once.
				total += kb(dynamo.ItemSize(it.Put.Item)) + b.putUnits(it.Put.Item)
			case it.Update != nil:
				total += 2 * kb(b.storedSize(ctx, it.Update.TableName, it.Update.Key))
			case it.ConditionCheck != nil:
				total += 2 * kb(b.storedSize(ctx, it.ConditionCheck.TableName, it.ConditionCheck.Key))
			case it.Delete != nil:
				// The item is gone: the smallest charge.
				total += 2
			}
		}
	}
	return total
}

// putUnits is what a plain put of it bills: a unit per KB of the item,
// and of each index entry it writes.
func (b *billing) putUnits(it map[string]types.AttributeValue) float64 {
	units := kb(dynamo.ItemSize(it))
	for _, ix := range b.indexes {
		if entry, ok := b.indexEntry(ix, it); ok {
			units += kb(dynamo.ItemSize(entry))
		}
	}
	return units
}

// indexEntry is the entry item writes into an index, if it has the index's
// keys.
func (b *billing) indexEntry(ix indexShape, item map[string]types.AttributeValue) (map[string]types.AttributeValue, bool) {
	for _, k := range ix.keys {
		if item[k] == nil {
			return nil, false
		}
	}
	if ix.all {
		return item, true
	}
	entry := map[string]types.AttributeValue{}
	for _, k := range append(append(append([]string{}, b.tableKeys...), ix.keys...), ix.include...) {
		if v := item[k]; v != nil {
			entry[k] = v
		}
	}
	return entry, true
}

// statementTable is the table a PartiQL statement names (its first
// double-quoted name).
func statementTable(st types.BatchStatementRequest) *string {
	_, rest, _ := strings.Cut(aws.ToString(st.Statement), `"`)
	name, _, _ := strings.Cut(rest, `"`)
	return &name
}

// storedSize reads the item at key as it is now; a missing item counts as
// empty.
func (b *billing) storedSize(ctx context.Context, table *string, key map[string]types.AttributeValue) int {
	id := aws.ToString(table) + "\x00" + attrString(key["PK"]) + "\x00" + attrString(key["SK"])
	if n, ok := b.sizes[id]; ok {
		return n
	}
	out, err := b.e.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true)})
	n := 0
	if err == nil && out.Item != nil {
		n = dynamo.ItemSize(out.Item)
	}
	b.sizes[id] = n
	return n
}

// kb is the number of 1 KB write units an item of size bytes takes (at
// least one).
func kb(size int) float64 {
	return math.Max(1, math.Ceil(float64(size)/1024))
}

// layout is the table's keys and indexes as the meter needs them to tell
// partition keys apart (meter.PartitionSeconds).
func (b *billing) layout() meter.Layout {
	l := meter.Layout{PK: b.tableKeys[0]}
	if len(b.tableKeys) > 1 {
		l.SK = b.tableKeys[1]
	}
	for _, ix := range b.indexes {
		i := meter.Index{Name: ix.name, PK: ix.keys[0], All: ix.all, Include: ix.include}
		if len(ix.keys) > 1 {
			i.SK = ix.keys[1]
		}
		l.Indexes = append(l.Indexes, i)
	}
	return l
}
