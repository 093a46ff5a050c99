package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/testenv"
)

// capacityDB counts the requests and the capacity units DynamoDB reports.
type capacityDB struct {
	dynamo.DB
	mu                sync.Mutex
	requests          int
	readUnits, writes float64
	txTime, bgTime    time.Duration
	// billed is what DynamoDB would bill for the transactions, computed
	// from the items by its rules: DynamoDB Local reports far less.
	billed float64
}

// transactionWriteUnits is the write capacity DynamoDB bills for a
// successful transaction: 2 units per started KB of each item written, plus
// 1 unit for each Slim index entry a Put writes. Updates and deletes here
// touch small items (counters, memberships, markers): 2 units each.
func transactionWriteUnits(items []types.TransactWriteItem) float64 {
	var u float64
	for _, it := range items {
		switch {
		case it.Put != nil:
			u += 2 * math.Ceil(float64(itemSize(it.Put.Item))/1024)
			if _, ok := it.Put.Item["LPK"]; ok {
				u++
			}
		case it.Update != nil, it.Delete != nil:
			u += 2
		}
	}
	return u
}

// itemSize is an item's size as DynamoDB counts it: names plus values.
func itemSize(m map[string]types.AttributeValue) int {
	n := 0
	for k, v := range m {
		n += len(k) + valueSize(v)
	}
	return n
}

func valueSize(v types.AttributeValue) int {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return len(v.Value)
	case *types.AttributeValueMemberN:
		return len(v.Value)/2 + 2
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueSize(e)
		}
		return n
	case *types.AttributeValueMemberM:
		return 3 + itemSize(v.Value)
	}
	return 0
}

// add records one request and the capacity it consumed. DynamoDB Local
// reports only the total (CapacityUnits), so the operation tells reads from
// writes.
func (c *capacityDB) add(write bool, cc ...types.ConsumedCapacity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests++
	for _, x := range cc {
		if x.CapacityUnits == nil {
			continue
		}
		if write {
			c.writes += *x.CapacityUnits
		} else {
			c.readUnits += *x.CapacityUnits
		}
	}
}

// reset returns what was counted since the last reset and starts again.
func (c *capacityDB) reset() capacityCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := capacityCounts{requests: c.requests, read: c.readUnits, reported: c.writes, billed: c.billed, inTx: c.txTime, inBatchGet: c.bgTime}
	c.requests, c.readUnits, c.writes, c.billed, c.txTime, c.bgTime = 0, 0, 0, 0, 0, 0
	return out
}

// capacityCounts is what capacityDB counted over some work.
type capacityCounts struct {
	requests               int
	read, reported, billed float64
	inTx, inBatchGet       time.Duration
}

func (c *capacityDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	out, err := c.DB.GetItem(ctx, in, o...)
	if err == nil && out.ConsumedCapacity != nil {
		c.add(false, *out.ConsumedCapacity)
	}
	return out, err
}

func (c *capacityDB) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	out, err := c.DB.Query(ctx, in, o...)
	if err == nil && out.ConsumedCapacity != nil {
		c.add(false, *out.ConsumedCapacity)
	}
	return out, err
}

func (c *capacityDB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	t0 := time.Now()
	out, err := c.DB.BatchGetItem(ctx, in, o...)
	c.mu.Lock()
	c.bgTime += time.Since(t0)
	c.mu.Unlock()
	if err == nil {
		c.add(false, out.ConsumedCapacity...)
	}
	return out, err
}

func (c *capacityDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityIndexes
	t0 := time.Now()
	out, err := c.DB.TransactWriteItems(ctx, in, o...)
	c.mu.Lock()
	c.txTime += time.Since(t0)
	if err == nil {
		c.billed += transactionWriteUnits(in.TransactItems)
	}
	c.mu.Unlock()
	if err == nil {
		c.add(true, out.ConsumedCapacity...)
	}
	return out, err
}

// TestMeasureContacts reports the figures of DESIGN.md's contact targets. It
// is a measurement, not a check, so it runs only when asked:
// CONTACTS_MEASURE=10000 (contacts to import; page 50 needs ≥ 5,000).
func TestMeasureContacts(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CONTACTS_MEASURE"))
	if n == 0 {
		t.Skip("set CONTACTS_MEASURE=<contacts> to measure")
	}
	db := &capacityDB{DB: testenv.Client(t)}
	s := dynamo.New(db, testenv.Table(t))
	_, key := testenv.Org(t, s, "bench", 0)
	h := httpapi.NewServer(s, httpapi.Config{Logger: testenv.Quiet}).Handler(httpapi.Contacts)
	do := func(method, path string, body any) (int, []byte) {
		var buf bytes.Buffer
		if body != nil {
			_ = json.NewEncoder(&buf).Encode(body)
		}
		req := httptest.NewRequest(method, path, &buf)
		req.Header.Set("x-api-key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes()
	}
	_, body := do("POST", "/api/campaigns/contact-lists", map[string]any{"name": "bench"})
	var created struct {
		Data struct{ ListID string } `json:"data"`
	}
	_ = json.Unmarshal(body, &created)
	db.reset()
	start := time.Now()
	for from := 0; from < n; from += 100 {
		batch := people(from, min(100, n-from))
		for _, c := range batch {
			c["tags"] = []string{"bench"}
			c["jobTitle"] = "Engineer"
		}
		if status, body := do("POST", "/api/campaigns/contact-lists/"+created.Data.ListID+"/contacts", map[string]any{"contacts": batch}); status != http.StatusOK {
			t.Fatalf("batch at %d: %d %s", from, status, body)
		}
	}
	wall := time.Since(start)
	c := db.reset()
	t.Logf("import %d contacts: %v wall (%v in transactions, %v in batch gets), %d requests; per contact: %.2f write units billed by DynamoDB's rules (%.2f reported by DynamoDB Local), %.2f read units",
		n, wall.Round(time.Millisecond), c.inTx.Round(time.Millisecond), c.inBatchGet.Round(time.Millisecond), c.requests,
		c.billed/float64(n), c.reported/float64(n), c.read/float64(n))
	for _, q := range []string{"page=1&limit=100", "page=50&limit=100", "search=first12&limit=100", "page=1&limit=12"} {
		status, _ := do("GET", "/api/campaigns/contacts?"+q, nil)
		c := db.reset()
		t.Logf("GET /contacts?%s: %d, %d requests, %.1f read units", q, status, c.requests, c.read)
	}
}
