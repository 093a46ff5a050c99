// Package meter measures what the service asks of DynamoDB, for the
// benchmark (make bench) and for the tests that count a request's reads and
// writes. It lives under bench/ so that no Lambda function links it (a test
// keeps it so).
package meter

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
)

// Meter is a dynamo.DB that measures what the service asks of DynamoDB: it sets
// ReturnConsumedCapacity=TOTAL on every request and counts requests, read
// and write units and the time spent waiting for DynamoDB. Counts go to the
// meter's running total and to the Usage that the request's context carries
// (see WithUsage), so one HTTP call's share can be told apart from work
// running beside it. The benchmark (make bench) builds the service over a
// Meter; the deployed functions never do.
type Meter struct {
	db    dynamo.DB
	total Usage

	mu        sync.Mutex
	observers []*Usage
}

var _ dynamo.DB = (*Meter)(nil)

// New returns a Meter over db.
func New(db dynamo.DB) *Meter { return &Meter{db: db} }

// Total returns everything the meter has counted so far.
func (m *Meter) Total() Counts { return m.total.Counts() }

// Observe counts every call through the meter in u as well, whatever its
// context, until stop is called: for work that runs outside any request,
// such as background jobs.
func (m *Meter) Observe(u *Usage) (stop func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.observers = append(m.observers, u)
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		for i, o := range m.observers {
			if o == u {
				m.observers = append(m.observers[:i], m.observers[i+1:]...)
				break
			}
		}
	}
}

// Counts are the measured requests of a piece of work.
type Counts struct {
	// Requests is the number of DynamoDB operations issued (a
	// TransactWriteItems or a BatchGetItem counts once).
	Requests int
	// ReadUnits and WriteUnits are the capacity units DynamoDB reported as
	// consumed. A failed request reports none.
	ReadUnits, WriteUnits float64
	// DBTime is the time spent in DynamoDB calls, as the SDK client sees it.
	DBTime time.Duration
}

// Sub returns c minus earlier counts.
func (c Counts) Sub(earlier Counts) Counts {
	return Counts{
		Requests:   c.Requests - earlier.Requests,
		ReadUnits:  c.ReadUnits - earlier.ReadUnits,
		WriteUnits: c.WriteUnits - earlier.WriteUnits,
		DBTime:     c.DBTime - earlier.DBTime,
	}
}

// Add returns c plus other counts.
func (c Counts) Add(other Counts) Counts {
	return Counts{
		Requests:   c.Requests + other.Requests,
		ReadUnits:  c.ReadUnits + other.ReadUnits,
		WriteUnits: c.WriteUnits + other.WriteUnits,
		DBTime:     c.DBTime + other.DBTime,
	}
}

// Call is one recorded DynamoDB operation.
type Call struct {
	// Op is the operation name, e.g. "GetItem".
	Op string
	// Input is the request as sent (a *dynamodb.<Op>Input).
	Input any
	// Took is how long the call took.
	Took time.Duration
	// End is when the call returned.
	End time.Time
	// Err is the call's error, if it failed.
	Err error
	// ReadUnits and WriteUnits are the capacity DynamoDB reported.
	ReadUnits, WriteUnits float64
}

// Usage collects the counts of the work running under one context, safely
// for concurrent calls. When Record is set, it also keeps every call, so the
// same requests can be replayed without the service (see Replay).
type Usage struct {
	// Record keeps the calls; set it before the work starts.
	Record bool

	mu     sync.Mutex
	counts Counts
	calls  []Call
}

// Counts returns what u has collected.
func (u *Usage) Counts() Counts {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.counts
}

// Calls returns the recorded calls, in the order they ended.
func (u *Usage) Calls() []Call {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]Call(nil), u.calls...)
}

func (u *Usage) add(c Call) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.counts.Requests++
	u.counts.ReadUnits += c.ReadUnits
	u.counts.WriteUnits += c.WriteUnits
	u.counts.DBTime += c.Took
	if u.Record {
		u.calls = append(u.calls, c)
	}
}

type usageKey struct{}

// WithUsage returns a context whose DynamoDB requests through a Meter are
// counted in u.
func WithUsage(ctx context.Context, u *Usage) context.Context {
	return context.WithValue(ctx, usageKey{}, u)
}

// meterKind says whether an operation's consumed capacity is read or write
// capacity when DynamoDB reports only the total.
type meterKind int

const (
	meterRead meterKind = iota
	meterWrite
)

// record adds one finished call to the total, to the context's Usage and
// to the observers.
func (m *Meter) record(ctx context.Context, c Call, k meterKind, consumed ...types.ConsumedCapacity) {
	for _, cc := range consumed {
		r, w := meterUnits(cc, k)
		c.ReadUnits += r
		c.WriteUnits += w
	}
	m.total.add(c)
	if u, ok := ctx.Value(usageKey{}).(*Usage); ok && u != nil {
		u.add(c)
	}
	m.mu.Lock()
	observers := append([]*Usage(nil), m.observers...)
	m.mu.Unlock()
	for _, o := range observers {
		o.add(c)
	}
}

// meterUnits splits consumed capacity into read and write units. DynamoDB fills
// in ReadCapacityUnits and WriteCapacityUnits for some operations only;
// otherwise the total belongs to the operation's kind.
func meterUnits(cc types.ConsumedCapacity, k meterKind) (read, write float64) {
	if cc.ReadCapacityUnits != nil || cc.WriteCapacityUnits != nil {
		return meterDeref(cc.ReadCapacityUnits), meterDeref(cc.WriteCapacityUnits)
	}
	if k == meterWrite {
		return 0, meterDeref(cc.CapacityUnits)
	}
	return meterDeref(cc.CapacityUnits), 0
}

func meterDeref(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

func meterOne(cc *types.ConsumedCapacity) []types.ConsumedCapacity {
	if cc == nil {
		return nil
	}
	return []types.ConsumedCapacity{*cc}
}

const meterTotal = types.ReturnConsumedCapacityTotal

// GetItem implements dynamo.DB.
func (m *Meter) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c := *in
	c.ReturnConsumedCapacity = meterTotal
	start := time.Now()
	out, err := m.db.GetItem(ctx, &c, opts...)
	call := Call{Op: "GetItem", Input: &c, Took: time.Since(start), End: time.Now(), Err: err}
	if out == nil {
		m.record(ctx, call, meterRead)
	} else {
		m.record(ctx, call, meterRead, meterOne(out.ConsumedCapacity)...)
	}
	return out, err
}

// PutItem implements dynamo.DB.
func (m *Meter) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	c := *in
	c.ReturnConsumedCapacity = meterTotal
	start := time.Now()
	out, err := m.db.PutItem(ctx, &c, opts...)
	call := Call{Op: "PutItem", Input: &c, Took: time.Since(start), End: time.Now(), Err: err}
	if out == nil {
		m.record(ctx, call, meterWrite)
	} else {
		m.record(ctx, call, meterWrite, meterOne(out.ConsumedCapacity)...)
	}
	return out, err
}

// UpdateItem implements dynamo.DB.
func (m *Meter) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	c := *in
	c.ReturnConsumedCapacity = meterTotal
	start := time.Now()
	out, err := m.db.UpdateItem(ctx, &c, opts...)
	call := Call{Op: "UpdateItem", Input: &c, Took: time.Since(start), End: time.Now(), Err: err}
	if out == nil {
		m.record(ctx, call, meterWrite)
	} else {
		m.record(ctx, call, meterWrite, meterOne(out.ConsumedCapacity)...)
	}
	return out, err
}

// DeleteItem implements dynamo.DB.
func (m *Meter) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	c := *in
	c.ReturnConsumedCapacity = meterTotal
	start := time.Now()
	out, err := m.db.DeleteItem(ctx, &c, opts...)
	call := Call{Op: "DeleteItem", Input: &c, Took: time.Since(start), End: time.Now(), Err: err}
	if out == nil {
		m.record(ctx, call, meterWrite)
	} else {
		m.record(ctx, call, meterWrite, meterOne(out.ConsumedCapacity)...)
	}
	return out, err
}

// Query implements dynamo.DB.
func (m *Meter) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c := *in
	c.ReturnConsumedCapacity = meterTotal
	start := time.Now()
	out, err := m.db.Query(ctx, &c, opts...)
	call := Call{Op: "Query", Input: &c, Took: time.Since(start), End: time.Now(), Err: err}
	if out == nil {
		m.record(ctx, call, meterRead)
	} else {
		m.record(ctx, call, meterRead, meterOne(out.ConsumedCapacity)...)
	}
	return out, err
}

// BatchGetItem implements dynamo.DB.
func (m *Meter) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	c := *in
	c.ReturnConsumedCapacity = meterTotal
	start := time.Now()
	out, err := m.db.BatchGetItem(ctx, &c, opts...)
	call := Call{Op: "BatchGetItem", Input: &c, Took: time.Since(start), End: time.Now(), Err: err}
	if out == nil {
		m.record(ctx, call, meterRead)
	} else {
		m.record(ctx, call, meterRead, out.ConsumedCapacity...)
	}
	return out, err
}

// BatchWriteItem implements dynamo.DB.
func (m *Meter) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	c := *in
	c.ReturnConsumedCapacity = meterTotal
	start := time.Now()
	out, err := m.db.BatchWriteItem(ctx, &c, opts...)
	call := Call{Op: "BatchWriteItem", Input: &c, Took: time.Since(start), End: time.Now(), Err: err}
	if out == nil {
		m.record(ctx, call, meterWrite)
	} else {
		m.record(ctx, call, meterWrite, out.ConsumedCapacity...)
	}
	return out, err
}

// TransactWriteItems implements dynamo.DB.
func (m *Meter) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	c := *in
	c.ReturnConsumedCapacity = meterTotal
	start := time.Now()
	out, err := m.db.TransactWriteItems(ctx, &c, opts...)
	call := Call{Op: "TransactWriteItems", Input: &c, Took: time.Since(start), End: time.Now(), Err: err}
	if out == nil {
		m.record(ctx, call, meterWrite)
	} else {
		m.record(ctx, call, meterWrite, out.ConsumedCapacity...)
	}
	return out, err
}

// statementRunner is a client that runs PartiQL batches (the DynamoDB
// client; dynamo.DB leaves them out).
type statementRunner interface {
	BatchExecuteStatement(context.Context, *dynamodb.BatchExecuteStatementInput, ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error)
}

// BatchExecuteStatement runs a PartiQL batch on db (dynamo's new-contact
// inserts). DynamoDB Local reports no consumed capacity for it; the
// benchmark estimates its units from the statements' items
// (dynamo.InsertedItem).
func (m *Meter) BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error) {
	b, ok := m.db.(statementRunner)
	if !ok {
		return nil, fmt.Errorf("meter: the client runs no statement batches")
	}
	c := *in
	c.ReturnConsumedCapacity = meterTotal
	start := time.Now()
	out, err := b.BatchExecuteStatement(ctx, &c, opts...)
	call := Call{Op: "BatchExecuteStatement", Input: &c, Took: time.Since(start), End: time.Now(), Err: err}
	if out == nil {
		m.record(ctx, call, meterWrite)
	} else {
		m.record(ctx, call, meterWrite, out.ConsumedCapacity...)
	}
	return out, err
}

// Replay issues recorded calls again, one after another, directly on db:
// the same requests without the service around them. It stops at the first
// call that fails when its recording did not.
func Replay(ctx context.Context, db dynamo.DB, calls []Call) error {
	for _, c := range calls {
		var err error
		switch in := c.Input.(type) {
		case *dynamodb.GetItemInput:
			_, err = db.GetItem(ctx, in)
		case *dynamodb.PutItemInput:
			_, err = db.PutItem(ctx, in)
		case *dynamodb.UpdateItemInput:
			_, err = db.UpdateItem(ctx, in)
		case *dynamodb.DeleteItemInput:
			_, err = db.DeleteItem(ctx, in)
		case *dynamodb.QueryInput:
			_, err = db.Query(ctx, in)
		case *dynamodb.BatchGetItemInput:
			_, err = db.BatchGetItem(ctx, in)
		case *dynamodb.BatchWriteItemInput:
			_, err = db.BatchWriteItem(ctx, in)
		case *dynamodb.TransactWriteItemsInput:
			_, err = db.TransactWriteItems(ctx, in)
		case *dynamodb.BatchExecuteStatementInput:
			b, ok := db.(statementRunner)
			if !ok {
				return fmt.Errorf("replay: the client runs no statement batches")
			}
			_, err = b.BatchExecuteStatement(ctx, in)
		default:
			return fmt.Errorf("replay: cannot issue %T", c.Input)
		}
		if err != nil && c.Err == nil {
			return fmt.Errorf("replay %s: %w", c.Op, err)
		}
	}
	return nil
}
