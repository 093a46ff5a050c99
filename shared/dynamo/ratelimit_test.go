package dynamo_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// rateWindowStart is 10:00, the start of a rate window; the tests count
// 10 s into it.
var rateWindowStart = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// rateProcesses returns n stores over one fresh table, each with leases of
// its own as separate Lambda instances have, on the clock now, and the
// meter all their DynamoDB requests go through.
func rateProcesses(t *testing.T, n int, now func() time.Time) ([]*dynamo.Store, *meter.Meter) {
	t.Helper()
	m := meter.New(testenv.Client(t))
	table := testenv.Table(t)
	stores := make([]*dynamo.Store, n)
	for i := range stores {
		stores[i] = dynamo.New(m, table, dynamo.WithClock(now))
	}
	return stores, m
}

// countRequest counts one add-recipient request of org against limit,
// failing the test if it cannot, and checks the window's end it reports.
func countRequest(t *testing.T, s *dynamo.Store, org string, limit int, wantReset time.Time) int64 {
	t.Helper()
	used, err := s.CountRequest(context.Background(), org, gifting.RateAddRecipient, limit)
	if err != nil {
		t.Fatal(err)
	}
	if !used.Reset.Equal(wantReset) {
		t.Fatalf("reset %s, want the window's end %s", used.Reset, wantReset)
	}
	return used.Count
}

// TestRateLimitExactAcrossProcesses: three processes serve a burst of more
// requests than the budget at once. No more than the budget is admitted;
// once each process has served what it leased, exactly the budget has been
// admitted, each count once; and the counter cost far fewer writes than
// requests.
func TestRateLimitExactAcrossProcesses(t *testing.T) {
	t.Parallel()
	const (
		limit      = 600
		processes  = 3
		goroutines = 8 // per process
		each       = 40
	)
	now := rateWindowStart.Add(10 * time.Second)
	reset := rateWindowStart.Add(gifting.RateWindow)
	stores, m := rateProcesses(t, processes, func() time.Time { return now })

	var (
		mu       sync.Mutex
		admitted []int64
		requests int
	)
	serve := func(s *dynamo.Store) (refused bool) {
		c := countRequest(t, s, "acme", limit, reset)
		mu.Lock()
		defer mu.Unlock()
		requests++
		if c <= limit {
			admitted = append(admitted, c)
		}
		return c > limit
	}
	var wg sync.WaitGroup
	for _, s := range stores {
		for range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					serve(s)
				}
			}()
		}
	}
	wg.Wait()
	if len(admitted) > limit {
		t.Fatalf("the burst of %d requests: %d admitted, over the limit of %d", requests, len(admitted), limit)
	}
	burst := len(admitted)
	// Each process serves until it refuses: then it holds no count within
	// the limit.
	for i, s := range stores {
		for n := 0; !serve(s); n++ {
			if n > limit {
				t.Fatalf("process %d admitted more than %d requests after the burst", i, limit)
			}
		}
	}

	slices.Sort(admitted)
	if len(admitted) != limit {
		t.Errorf("%d admitted (%d in the burst), want the limit %d once every process has served its lease", len(admitted), burst, limit)
	}
	for i, c := range admitted {
		if c != int64(i+1) {
			t.Fatalf("admitted counts %v…: want each count 1..%d once", admitted[:i+1], limit)
		}
	}
	writes := m.Total().Requests
	t.Logf("%d requests, %d admitted in the burst, %d counter writes", requests, burst, writes)
	if writes*4 > requests {
		t.Errorf("%d counter writes for %d requests, want under a quarter", writes, requests)
	}
}

// TestRateLimitLeaseCost: one process serving an organization's whole
// budget in order admits exactly it, with one write per block (20 requests)
// while the budget is far from spent; past the limit, the window's further
// requests cost no write.
func TestRateLimitLeaseCost(t *testing.T) {
	t.Parallel()
	const limit = 600
	now := rateWindowStart.Add(10 * time.Second)
	reset := rateWindowStart.Add(gifting.RateWindow)
	stores, m := rateProcesses(t, 1, func() time.Time { return now })
	s := stores[0]

	for i := int64(1); i <= limit; i++ {
		if got := countRequest(t, s, "acme", limit, reset); got != i {
			t.Fatalf("request %d counted %d, want %d: one process alone counts in order", i, got, i)
		}
		if i == 200 {
			// A first write of 1 (nothing known yet), then blocks of 20.
			if got, want := m.Total().Requests, 1+(200-1+19)/20; got > want {
				t.Errorf("%d writes for the first 200 of 600 requests, want at most %d", got, want)
			}
		}
	}
	writes := m.Total().Requests
	t.Logf("%d counter writes for %d requests (limit %d)", writes, limit, limit)
	if writes*5 > limit {
		t.Errorf("%d counter writes for %d requests, want under a fifth", writes, limit)
	}
	for i := range 10 {
		if got := countRequest(t, s, "acme", limit, reset); got <= limit {
			t.Fatalf("request %d past the budget counted %d, within the limit %d", limit+1+i, got, limit)
		}
	}
	if got := m.Total().Requests - writes; got != 1 {
		t.Errorf("%d writes for 10 requests past the budget, want 1 (the one that saw the count pass the limit)", got)
	}
}

// TestRateLimitNewWindow: a new window starts with no lease and a budget of
// its own, whatever the process held or saw in the last one.
func TestRateLimitNewWindow(t *testing.T) {
	t.Parallel()
	now := rateWindowStart.Add(50 * time.Second)
	stores, _ := rateProcesses(t, 1, func() time.Time { return now })
	s := stores[0]
	cases := []struct {
		name  string
		limit int
		// before is the number of requests in the first window, and
		// last the count of the last of them.
		before int
		last   int64
	}{
		// The fourth saw the count pass the limit: the fifth is refused
		// without a write, with that count.
		{"over the limit", 3, 5, 4},
		// A write of 1, then one of 20: 19 left unused.
		{"a lease left unused", 600, 2, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Subtests share the clock: not parallel.
			now = rateWindowStart.Add(50 * time.Second)
			first := rateWindowStart.Add(gifting.RateWindow)
			var last int64
			for range c.before {
				last = countRequest(t, s, c.name, c.limit, first)
			}
			if last != c.last {
				t.Fatalf("last request of the first window counted %d, want %d", last, c.last)
			}
			now = now.Add(20 * time.Second)
			if got := countRequest(t, s, c.name, c.limit, first.Add(gifting.RateWindow)); got != 1 {
				t.Errorf("first request of the next window counted %d, want 1", got)
			}
		})
	}
}

// updateFailsDB fails every UpdateItem with err while down is set, and
// passes everything else to DynamoDB Local.
type updateFailsDB struct {
	dynamo.DB
	err  error
	down atomic.Bool
}

func (f *updateFailsDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if f.down.Load() {
		return nil, f.err
	}
	return f.DB.UpdateItem(ctx, in, opts...)
}

// TestRateLimitCounterOutage: while the counter cannot be written, a
// process serves what it has leased and reports an error for the rest (the
// HTTP layer lets those through); a failed write leases nothing, so
// counting resumes where it stopped.
func TestRateLimitCounterOutage(t *testing.T) {
	t.Parallel()
	const limit = 600
	now := rateWindowStart.Add(10 * time.Second)
	reset := rateWindowStart.Add(gifting.RateWindow)
	db := &updateFailsDB{DB: testenv.Client(t), err: &types.ThrottlingException{Message: aws.String("slow down")}}
	s := dynamo.New(db, testenv.Table(t), dynamo.WithClock(func() time.Time { return now }))

	countRequest(t, s, "acme", limit, reset) // a block of 1
	countRequest(t, s, "acme", limit, reset) // a block of 20: counts 2..21
	db.down.Store(true)
	for want := int64(3); want <= 21; want++ {
		if got := countRequest(t, s, "acme", limit, reset); got != want {
			t.Fatalf("leased request counted %d, want %d", got, want)
		}
	}
	if _, err := s.CountRequest(context.Background(), "acme", gifting.RateAddRecipient, limit); !errors.Is(err, db.err) {
		t.Fatalf("past the lease with the counter down: %v, want the write's error", err)
	}
	db.down.Store(false)
	if got := countRequest(t, s, "acme", limit, reset); got != 22 {
		t.Errorf("first request after the outage counted %d, want 22", got)
	}
}
