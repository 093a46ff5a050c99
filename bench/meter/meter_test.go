package meter_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

func meterStr(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func TestMeter(t *testing.T) {
	t.Parallel()
	table := testenv.Table(t)
	client := testenv.Client(t)
	ctx := context.Background()
	// A 1.5 KB item: two write units, one strongly consistent read unit.
	big := map[string]types.AttributeValue{"PK": meterStr("a"), "SK": meterStr("1"), "x": meterStr(strings.Repeat("x", 1500))}
	small := map[string]types.AttributeValue{"PK": meterStr("a"), "SK": meterStr("2")}
	for _, it := range []map[string]types.AttributeValue{big, small} {
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		do   func(ctx context.Context, db dynamo.DB) error
		want meter.Counts
		// failed is true when the call must fail (and still be counted).
		failed bool
	}{
		{
			name: "strongly consistent get",
			do: func(ctx context.Context, db dynamo.DB) error {
				_, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"PK": meterStr("a"), "SK": meterStr("1")}, ConsistentRead: aws.Bool(true)})
				return err
			},
			want: meter.Counts{Requests: 1, ReadUnits: 1},
		},
		{
			name: "put of a 1.5 KB item",
			do: func(ctx context.Context, db dynamo.DB) error {
				it := map[string]types.AttributeValue{"PK": meterStr("b"), "SK": meterStr("1"), "x": meterStr(strings.Repeat("x", 1500))}
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: it})
				return err
			},
			want: meter.Counts{Requests: 1, WriteUnits: 2},
		},
		{
			name: "transaction of one small put",
			do: func(ctx context.Context, db dynamo.DB) error {
				_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: &table, Item: map[string]types.AttributeValue{"PK": meterStr("c"), "SK": meterStr("1")}}},
				}})
				return err
			},
			want: meter.Counts{Requests: 1, WriteUnits: 2},
		},
		{
			name: "failed condition",
			do: func(ctx context.Context, db dynamo.DB) error {
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: big, ConditionExpression: aws.String("attribute_not_exists(PK)")})
				return err
			},
			want:   meter.Counts{Requests: 1},
			failed: true,
		},
		{
			name: "batch get of two items (1.5 KB and tiny)",
			do: func(ctx context.Context, db dynamo.DB) error {
				_, err := db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{table: {
					Keys:           []map[string]types.AttributeValue{{"PK": meterStr("a"), "SK": meterStr("1")}, {"PK": meterStr("a"), "SK": meterStr("2")}},
					ConsistentRead: aws.Bool(true),
				}}})
				return err
			},
			want: meter.Counts{Requests: 1, ReadUnits: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := meter.New(client)
			u := &meter.Usage{Record: true}
			err := tt.do(meter.WithUsage(ctx, u), m)
			if (err != nil) != tt.failed {
				t.Fatalf("err = %v, want failure %v", err, tt.failed)
			}
			got := u.Counts()
			if got.Requests != tt.want.Requests || got.ReadUnits != tt.want.ReadUnits || got.WriteUnits != tt.want.WriteUnits {
				t.Errorf("usage = %+v, want %+v", got, tt.want)
			}
			if got.DBTime <= 0 {
				t.Errorf("DBTime = %v, want the time of the call", got.DBTime)
			}
			if total := m.Total(); total != got {
				t.Errorf("meter total = %+v, want the same as the usage %+v", total, got)
			}
			calls := u.Calls()
			if len(calls) != 1 || (calls[0].Err != nil) != tt.failed {
				t.Fatalf("recorded %+v, want one call, failed %v", calls, tt.failed)
			}
		})
	}

	t.Run("work outside a usage counts in the total only", func(t *testing.T) {
		m := meter.New(client)
		u := &meter.Usage{}
		in := &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"PK": meterStr("a"), "SK": meterStr("1")}}
		if _, err := m.GetItem(ctx, in); err != nil {
			t.Fatal(err)
		}
		if got := u.Counts(); got.Requests != 0 {
			t.Errorf("usage = %+v, want nothing", got)
		}
		if got := m.Total(); got.Requests != 1 || got.ReadUnits != 0.5 {
			t.Errorf("total = %+v, want 1 request, 0.5 read units (eventually consistent)", got)
		}
		if in.ReturnConsumedCapacity != "" {
			t.Errorf("caller's input was changed: ReturnConsumedCapacity = %q", in.ReturnConsumedCapacity)
		}
		if calls := u.Calls(); len(calls) != 0 {
			t.Errorf("recorded %d calls without Record", len(calls))
		}
	})

	t.Run("an observer counts calls of any context until stopped", func(t *testing.T) {
		m := meter.New(client)
		seen := &meter.Usage{Record: true}
		stop := m.Observe(seen)
		in := &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"PK": meterStr("a"), "SK": meterStr("1")}, ConsistentRead: aws.Bool(true)}
		if _, err := m.GetItem(ctx, in); err != nil {
			t.Fatal(err)
		}
		stop()
		if _, err := m.GetItem(ctx, in); err != nil {
			t.Fatal(err)
		}
		if got := seen.Counts(); got.Requests != 1 || got.ReadUnits != 1 {
			t.Errorf("observed %+v, want the one call made while observing", got)
		}
		if calls := seen.Calls(); len(calls) != 1 || calls[0].ReadUnits != 1 || calls[0].Op != "GetItem" {
			t.Errorf("recorded %+v, want one GetItem of 1 read unit", calls)
		}
	})

	t.Run("replay issues the recorded requests again", func(t *testing.T) {
		u := &meter.Usage{Record: true}
		recorder := meter.New(client)
		uctx := meter.WithUsage(ctx, u)
		if _, err := recorder.GetItem(uctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"PK": meterStr("a"), "SK": meterStr("1")}}); err != nil {
			t.Fatal(err)
		}
		if _, err := recorder.Query(uctx, &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("PK = :p"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": meterStr("a")}}); err != nil {
			t.Fatal(err)
		}
		replayer := meter.New(client)
		if err := meter.Replay(ctx, replayer, u.Calls()); err != nil {
			t.Fatal(err)
		}
		if got, want := replayer.Total(), u.Counts(); got.Requests != want.Requests || got.ReadUnits != want.ReadUnits {
			t.Errorf("replay = %+v, want the recording's %+v", got, want)
		}
	})

	t.Run("replay stops at a call that fails anew", func(t *testing.T) {
		calls := []meter.Call{{Op: "PutItem", Input: &dynamodb.PutItemInput{TableName: &table, Item: big, ConditionExpression: aws.String("attribute_not_exists(PK)")}}}
		if err := meter.Replay(ctx, client, calls); err == nil {
			t.Error("replay of a put whose condition now fails: no error")
		}
	})
}

func TestCountsAdd(t *testing.T) {
	t.Parallel()
	a := meter.Counts{Requests: 3, ReadUnits: 1.5, WriteUnits: 2, DBTime: 5}
	b := meter.Counts{Requests: 1, ReadUnits: 0.5, WriteUnits: 8, DBTime: 2}
	if got, want := a.Add(b), (meter.Counts{Requests: 4, ReadUnits: 2, WriteUnits: 10, DBTime: 7}); got != want {
		t.Errorf("Add = %+v, want %+v", got, want)
	}
	if got := a.Add(b).Sub(b); got != a {
		t.Errorf("Add then Sub = %+v, want %+v back", got, a)
	}
}

// TestWrites splits recorded calls by partition key: what change records
// (PK ending in #CHG) add to the writes that carry them.
func TestWrites(t *testing.T) {
	t.Parallel()
	table := "t"
	item := func(pk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": meterStr(pk), "SK": meterStr("1")}
	}
	isChange := func(pk string) bool { return strings.HasSuffix(pk, "#CHG") }
	txn := meter.Call{Op: "TransactWriteItems", WriteUnits: 8, Input: &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: &table, Item: item("ORG#a")}},
		{Update: &types.Update{TableName: &table, Key: item("ORG#a#WALLET")}},
		{ConditionCheck: &types.ConditionCheck{TableName: &table, Key: item("ORG#a#CHG")}},
		{Put: &types.Put{TableName: &table, Item: item("ORG#a#CHG")}},
	}}}
	batch := meter.Call{Op: "BatchWriteItem", WriteUnits: 3, Input: &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: {
		{PutRequest: &types.PutRequest{Item: item("ORG#a#CHG")}},
		{PutRequest: &types.PutRequest{Item: item("ORG#a")}},
		{DeleteRequest: &types.DeleteRequest{Key: item("ORG#a")}},
	}}}}
	tests := []struct {
		name  string
		calls []meter.Call
		// wantKeys are the kept items' keys, call by call.
		wantKeys  [][]string
		wantUnits []float64
	}{
		{"a transaction keeps only its change items, with their share of the units", []meter.Call{txn}, [][]string{{"ORG#a#CHG", "ORG#a#CHG"}}, []float64{4}},
		{"a batch write keeps its change puts", []meter.Call{batch}, [][]string{{"ORG#a#CHG"}}, []float64{1}},
		{"single-item writes are kept or dropped whole", []meter.Call{
			{Op: "PutItem", WriteUnits: 2, Input: &dynamodb.PutItemInput{TableName: &table, Item: item("ORG#a#CHG")}},
			{Op: "PutItem", WriteUnits: 5, Input: &dynamodb.PutItemInput{TableName: &table, Item: item("ORG#a")}},
			{Op: "UpdateItem", WriteUnits: 1, Input: &dynamodb.UpdateItemInput{TableName: &table, Key: item("ORG#b#CHG")}},
			{Op: "DeleteItem", WriteUnits: 1, Input: &dynamodb.DeleteItemInput{TableName: &table, Key: item("ORG#b")}},
		}, [][]string{{"ORG#a#CHG"}, {"ORG#b#CHG"}}, []float64{2, 1}},
		{"reads are left out", []meter.Call{
			{Op: "GetItem", ReadUnits: 1, Input: &dynamodb.GetItemInput{TableName: &table, Key: item("ORG#a#CHG")}},
			{Op: "Query", ReadUnits: 1, Input: &dynamodb.QueryInput{TableName: &table}},
		}, nil, nil},
		{"a transaction without change items is left out", []meter.Call{{Op: "TransactWriteItems", Input: &dynamodb.TransactWriteItemsInput{
			TransactItems: []types.TransactWriteItem{{Delete: &types.Delete{TableName: &table, Key: item("ORG#a")}}}}}}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := meter.Writes(tt.calls, isChange)
			if len(got) != len(tt.wantKeys) {
				t.Fatalf("%d calls kept, want %d", len(got), len(tt.wantKeys))
			}
			for i, c := range got {
				keys := writtenKeys(c)
				if strings.Join(keys, ",") != strings.Join(tt.wantKeys[i], ",") {
					t.Errorf("call %d (%s) keeps %v, want %v", i, c.Op, keys, tt.wantKeys[i])
				}
				if c.WriteUnits != tt.wantUnits[i] {
					t.Errorf("call %d (%s): %.2f write units, want %.2f", i, c.Op, c.WriteUnits, tt.wantUnits[i])
				}
			}
		})
	}
	t.Run("the recorded calls are not changed", func(t *testing.T) {
		meter.Writes([]meter.Call{txn, batch}, isChange)
		if n := len(txn.Input.(*dynamodb.TransactWriteItemsInput).TransactItems); n != 4 {
			t.Errorf("the transaction now has %d items, want its 4", n)
		}
		if n := len(batch.Input.(*dynamodb.BatchWriteItemInput).RequestItems[table]); n != 3 {
			t.Errorf("the batch now has %d requests, want its 3", n)
		}
	})
}

// writtenKeys are the partition keys a kept call writes or checks.
func writtenKeys(c meter.Call) []string {
	pk := func(m map[string]types.AttributeValue) string { return m["PK"].(*types.AttributeValueMemberS).Value }
	var keys []string
	switch in := c.Input.(type) {
	case *dynamodb.PutItemInput:
		keys = append(keys, pk(in.Item))
	case *dynamodb.UpdateItemInput:
		keys = append(keys, pk(in.Key))
	case *dynamodb.DeleteItemInput:
		keys = append(keys, pk(in.Key))
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil:
				keys = append(keys, pk(it.Put.Item))
			case it.ConditionCheck != nil:
				keys = append(keys, pk(it.ConditionCheck.Key))
			case it.Update != nil:
				keys = append(keys, pk(it.Update.Key))
			case it.Delete != nil:
				keys = append(keys, pk(it.Delete.Key))
			}
		}
	case *dynamodb.BatchWriteItemInput:
		for _, reqs := range in.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					keys = append(keys, pk(r.PutRequest.Item))
				} else {
					keys = append(keys, pk(r.DeleteRequest.Key))
				}
			}
		}
	}
	return keys
}

func TestPartitionSeconds(t *testing.T) {
	t.Parallel()
	table := testenv.Table(t)
	client := testenv.Client(t)
	ctx := context.Background()
	layout := meter.Layout{PK: "PK", SK: "SK", Indexes: []meter.Index{
		{Name: "Slim", PK: "LPK", SK: "LSK", Include: []string{"srch"}},
		{Name: "Pages", PK: "pg"},
	}}
	// A 1.5 KB item with a Slim entry: 2 units on its table key, 1 on its
	// Slim key (the entry is small).
	big := map[string]types.AttributeValue{"PK": meterStr("ORG#o1"), "SK": meterStr("RCPT#c1#r1"), "LPK": meterStr("ORG#o1#RCPT#c1"),
		"LSK": meterStr("RCPT#c1#r1"), "srch": meterStr("ann"), "x": meterStr(strings.Repeat("x", 1500))}
	small := func(sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": meterStr("ORG#o1"), "SK": meterStr(sk), "pg": meterStr("page" + sk)}
	}
	tests := []struct {
		name string
		do   func(ctx context.Context, db dynamo.DB) error
		want map[string]float64
	}{
		{
			name: "put with an index entry",
			do: func(ctx context.Context, db dynamo.DB) error {
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: big})
				return err
			},
			want: map[string]float64{"ORG#o1": 2, "Slim:ORG#o1#RCPT#c1": 1},
		},
		{
			name: "transaction of two small puts and an update: twice the units",
			do: func(ctx context.Context, db dynamo.DB) error {
				_, err := db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Put: &types.Put{TableName: &table, Item: small("a")}},
					{Put: &types.Put{TableName: &table, Item: small("b")}},
					{Update: &types.Update{TableName: &table, Key: map[string]types.AttributeValue{"PK": meterStr("ORG#o2"), "SK": meterStr("c")},
						UpdateExpression: aws.String("SET n = :one"), ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}}}},
				}})
				return err
			},
			want: map[string]float64{"ORG#o1": 4, "ORG#o2": 2, "Pages:pagea": 1, "Pages:pageb": 1},
		},
		{
			name: "a failed call writes nothing",
			do: func(ctx context.Context, db dynamo.DB) error {
				_, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: big, ConditionExpression: aws.String("attribute_not_exists(PK)")})
				if err == nil {
					return errors.New("the put succeeded; want a failed condition")
				}
				return nil
			},
			want: map[string]float64{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &meter.Usage{Record: true}
			if err := tt.do(meter.WithUsage(ctx, u), meter.New(client)); err != nil {
				t.Fatal(err)
			}
			got := map[string]float64{}
			for _, ps := range meter.PartitionSeconds(u.Calls(), layout) {
				got[ps.Key] += ps.Units
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("units by partition key = %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("seconds are apart and the busiest comes first", func(t *testing.T) {
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		put := func(end time.Time) meter.Call {
			return meter.Call{Op: "PutItem", End: end, Input: &dynamodb.PutItemInput{TableName: &table, Item: small("a")}}
		}
		got := meter.PartitionSeconds([]meter.Call{put(at), put(at.Add(time.Second)), put(at.Add(1500 * time.Millisecond))}, layout)
		if len(got) != 4 || got[0].Key != "ORG#o1" || got[0].Units != 2 || !got[0].Second.Equal(at.Add(time.Second)) {
			t.Errorf("partition seconds = %+v, want ORG#o1 at 2 units in the second second first", got)
		}
	})
}

func TestKeyPattern(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ key, want string }{
		{"ORG#01JABC#RCPT#01JDEF", "ORG#…#RCPT#…"},
		{"Slim:ORG#acme-1#RCPT#01JDEF", "Slim:ORG#…#RCPT#…"},
		{"Due:DUE#3", "Due:DUE#…"},
	} {
		t.Run(tt.key, func(t *testing.T) {
			if got := meter.KeyPattern(tt.key); got != tt.want {
				t.Errorf("KeyPattern(%q) = %q, want %q", tt.key, got, tt.want)
			}
		})
	}
}
