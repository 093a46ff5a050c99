package meter

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/giftcampaign/service/shared/dynamo"
)

// Layout is what the meter must know of a table to tell which partition
// keys a write goes to: its key attributes and its global secondary
// indexes.
type Layout struct {
	// PK and SK name the table's key attributes.
	PK, SK string
	// Indexes are the table's global secondary indexes.
	Indexes []Index
}

// Index is a global secondary index: its name, key attributes and
// projection.
type Index struct {
	Name string
	// PK and SK name the index's key attributes (SK "" when it has none).
	PK, SK string
	// All says the index projects every attribute; otherwise it projects
	// the keys and Include.
	All     bool
	Include []string
}

// PartitionSecond is the write units that went into one partition key
// during one second.
type PartitionSecond struct {
	// Key is "<index>:<partition key value>", or the value alone for the
	// table.
	Key string
	// Second is the start of the second.
	Second time.Time
	// Units are the write units, estimated as AWS bills them: 1 per KB of
	// each item written (2 in a transaction), plus 1 per KB of each index
	// entry a put writes into that index's partition.
	Units float64
}

// PartitionSeconds returns, for every partition key and second, the write
// units that calls (as recorded, see Usage.Record) put into that key,
// busiest first. Each item a call writes counts toward its table
// partition key and toward the partition key of each index it has an
// entry in; an update or a delete counts 1 unit (2 in a transaction) on
// its table key (the stored item is not read back), and its index entries
// are not counted. Failed calls count nothing.
func PartitionSeconds(calls []Call, l Layout) []PartitionSecond {
	type slot struct {
		key string
		sec int64
	}
	sums := map[slot]float64{}
	for _, c := range calls {
		if c.Err != nil {
			continue
		}
		sec := c.End.Unix()
		add := func(key string, units float64) { sums[slot{key, sec}] += units }
		put := func(it map[string]types.AttributeValue, factor float64) {
			add(attrString(it[l.PK]), factor*units(dynamo.ItemSize(it)))
			for _, ix := range l.Indexes {
				if entry, ok := ix.entry(l, it); ok {
					add(ix.Name+":"+attrString(it[ix.PK]), units(dynamo.ItemSize(entry)))
				}
			}
		}
		touch := func(k map[string]types.AttributeValue, factor float64) { add(attrString(k[l.PK]), factor) }
		switch in := c.Input.(type) {
		case *dynamodb.PutItemInput:
			put(in.Item, 1)
		case *dynamodb.UpdateItemInput:
			touch(in.Key, 1)
		case *dynamodb.DeleteItemInput:
			touch(in.Key, 1)
		case *dynamodb.BatchWriteItemInput:
			for _, reqs := range in.RequestItems {
				for _, r := range reqs {
					switch {
					case r.PutRequest != nil:
						put(r.PutRequest.Item, 1)
					case r.DeleteRequest != nil:
						touch(r.DeleteRequest.Key, 1)
					}
				}
			}
		case *dynamodb.BatchExecuteStatementInput:
			for _, st := range in.Statements {
				if it, ok := dynamo.InsertedItem(st); ok {
					put(it, 1)
				} else if k, ok := dynamo.UpdatedKey(st); ok {
					touch(k, 1)
				}
			}
		case *dynamodb.TransactWriteItemsInput:
			for _, it := range in.TransactItems {
				switch {
				case it.Put != nil:
					put(it.Put.Item, 2)
				case it.Update != nil:
					touch(it.Update.Key, 2)
				case it.Delete != nil:
					touch(it.Delete.Key, 2)
				case it.ConditionCheck != nil:
					touch(it.ConditionCheck.Key, 2)
				}
			}
		}
	}
	out := make([]PartitionSecond, 0, len(sums))
	for s, u := range sums {
		out = append(out, PartitionSecond{Key: s.key, Second: time.Unix(s.sec, 0).UTC(), Units: u})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Units != out[j].Units {
			return out[i].Units > out[j].Units
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// KeyPattern is a partition key with its ids left out: the upper-case
// words of its #-separated parts stay, any other part becomes "…", so
// ORG#01J…#RCPT#01K… reads ORG#…#RCPT#… and a report names no tenant.
func KeyPattern(key string) string {
	name, value, ok := strings.Cut(key, ":")
	if !ok {
		name, value = "", key
	}
	parts := strings.Split(value, "#")
	for i, p := range parts {
		if p == "" || strings.ToUpper(p) != p || strings.IndexFunc(p, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
			parts[i] = "…"
		}
	}
	if name != "" {
		return name + ":" + strings.Join(parts, "#")
	}
	return strings.Join(parts, "#")
}

// entry is the entry item writes into ix, if it has ix's keys.
func (ix Index) entry(l Layout, item map[string]types.AttributeValue) (map[string]types.AttributeValue, bool) {
	if item[ix.PK] == nil || (ix.SK != "" && item[ix.SK] == nil) {
		return nil, false
	}
	if ix.All {
		return item, true
	}
	entry := map[string]types.AttributeValue{}
	for _, k := range append([]string{l.PK, l.SK, ix.PK, ix.SK}, ix.Include...) {
		if v := item[k]; k != "" && v != nil {
			entry[k] = v
		}
	}
	return entry, true
}

// units is the number of 1 KB write units an item of size bytes takes (at
// least one).
func units(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }

func attrString(v types.AttributeValue) string {
	if s, ok := v.(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
