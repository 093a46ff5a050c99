package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/httpapi"
)

// ops counts the DynamoDB operations of one call by name.
type ops map[string]int

func opsOf(calls []meter.Call) ops {
	o := ops{}
	for _, c := range calls {
		o[c.Op]++
	}
	return o
}

func (o ops) total() int {
	n := 0
	for _, v := range o {
		n += v
	}
	return n
}

func (o ops) reads() int {
	return o["GetItem"] + o["Query"] + o["BatchGetItem"] + o["TransactGetItems"]
}

// String lists the operations, e.g. "BatchGetItem, Query ×2".
func (o ops) String() string {
	names := make([]string, 0, len(o))
	for k := range o {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		if o[k] == 1 {
			parts = append(parts, k)
		} else {
			parts = append(parts, fmt.Sprintf("%s ×%d", k, o[k]))
		}
	}
	return strings.Join(parts, ", ")
}

// requestTarget is the bound (docs/performance.md) on the DynamoDB requests of
// one call.
type requestTarget struct {
	label string
	ok    func(ops) bool
}

var (
	getByID      = requestTarget{"1", func(o ops) bool { return o.total() == 1 }}
	listPage     = requestTarget{"≤ 2", func(o ops) bool { return o.total() <= 2 }}
	addRecipient = requestTarget{"1 transaction + ≤ 2 reads", func(o ops) bool {
		return o["TransactWriteItems"] == 1 && o.reads() <= 2 && o.total() == o.reads()+1
	}}
)

// overheadTarget is the bound (docs/performance.md) on API p50 ÷ bare DynamoDB
// p50.
const overheadTarget = 1.25

// endpointResult is what was measured of one endpoint.
type endpointResult struct {
	c      benchCase
	group  httpapi.Group
	served bool
	err    error
	// apiP50 and bareP50 are medians over the runs of each run's p50;
	// apiP99 and bareP99 are over all calls of all runs.
	apiP50, apiP99, bareP50, bareP99 time.Duration
	// ratio is the median over the runs of each run's API p50 ÷ bare p50:
	// a run's two figures come from interleaved calls, so load that comes
	// and goes on a shared machine weighs on both alike.
	ratio float64
	// requests, readUnits, writeUnits are means per call, as DynamoDB Local
	// reported them; billedWrites is the write units AWS would bill (see
	// units.go).
	requests, readUnits, writeUnits, billedWrites float64
	// ops is the most common set of operations of a call; most is that of
	// the call that made the most requests.
	ops, most ops
	// targetMet is false when any call missed the request target.
	targetMet bool
	// replayed is true when the bare figures come from replaying the
	// calls; false when from the time spent in DynamoDB during the call.
	replayed bool
	raw      []string
	// tenant and gen are the organization and requests the calls used.
	tenant tenant
	gen    func(int) call
}

// warmCalls are made before measuring: they fill the API-key cache and the
// connection pools, as on a warm function.
const warmCalls = 3

// measureEndpoint measures c in runs runs of calls calls each. Each run is a
// testing.Benchmark of calls iterations (plus its one-iteration probe), so
// the raw lines can be compared with benchstat.
func measureEndpoint(ctx context.Context, e *env, c benchCase, t tenant, runs, calls int) endpointResult {
	res := endpointResult{c: c, targetMet: true, replayed: true}
	res.group, res.served = servedBy(c.route)
	if !res.served || c.prepare == nil {
		return res
	}
	if c.calls > 0 {
		calls = c.calls
	}
	// Each run is one testing.Benchmark of exactly calls iterations.
	if err := flag.Set("test.benchtime", fmt.Sprintf("%dx", calls)); err != nil {
		res.err = err
		return res
	}
	total := warmCalls + runs*(calls+1)
	gen, err := c.prepare(ctx, e, t, total)
	if err != nil {
		res.err = fmt.Errorf("prepare: %w", err)
		return res
	}
	res.gen = gen
	next := 0
	one := func() (api, bare time.Duration, u *meter.Usage, err error) {
		rq := gen(next)
		next++
		as := t
		if rq.as != nil {
			as = *rq.as
		}
		start := time.Now()
		if _, err := e.expect(ctx, as, c.status, rq.method, rq.path, rq.body); err != nil {
			return 0, 0, nil, err
		}
		api = time.Since(start)
		u = e.last.Load()
		recorded := u.Calls()
		if opsOf(recorded).total() == opsOf(recorded).reads() {
			start = time.Now()
			if err := meter.Replay(ctx, e.client, recorded); err != nil {
				return 0, 0, nil, err
			}
			return api, time.Since(start), u, nil
		}
		return api, u.Counts().DBTime, u, nil
	}
	for range warmCalls {
		if _, _, _, err := one(); err != nil {
			res.err = err
			return res
		}
	}
	var (
		p50s, bp50s             []time.Duration
		ratios                  []float64
		allAPIs, allBares       []time.Duration
		requests, reads, writes float64
		billed                  float64
		n                       int
		signatures              = map[string]int{}
		opsBySig                = map[string]ops{}
	)
	for range runs {
		var runErr error
		br := testing.Benchmark(func(b *testing.B) {
			apis := make([]time.Duration, 0, b.N)
			bares := make([]time.Duration, 0, b.N)
			var rq, rr, wr, bw float64
			for range b.N {
				api, bare, u, err := one()
				if err != nil {
					runErr = err
					return
				}
				apis, bares = append(apis, api), append(bares, bare)
				counts, recorded := u.Counts(), u.Calls()
				o := opsOf(recorded)
				rq, rr, wr = rq+float64(counts.Requests), rr+counts.ReadUnits, wr+counts.WriteUnits
				b.StopTimer()
				bw += e.bill.writeUnits(ctx, recorded)
				b.StartTimer()
				if b.N > 1 {
					if c.target.ok != nil && !c.target.ok(o) {
						res.targetMet = false
					}
					if o.total() != o.reads() {
						res.replayed = false
					}
					sig := o.String()
					signatures[sig]++
					opsBySig[sig] = o
					if o.total() > res.most.total() {
						res.most = o
					}
				}
			}
			b.ReportMetric(float64(percentile(apis, 50).Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(percentile(apis, 99).Nanoseconds()), "p99-ns")
			b.ReportMetric(float64(percentile(bares, 50).Nanoseconds()), "bare-p50-ns")
			b.ReportMetric(float64(percentile(bares, 99).Nanoseconds()), "bare-p99-ns")
			b.ReportMetric(rq/float64(b.N), "ddbreq/op")
			b.ReportMetric(rr/float64(b.N), "rru/op")
			b.ReportMetric(wr/float64(b.N), "wru/op")
			b.ReportMetric(bw/float64(b.N), "billed-wru/op")
			if b.N > 1 {
				p50s, bp50s = append(p50s, percentile(apis, 50)), append(bp50s, percentile(bares, 50))
				ratios = append(ratios, float64(percentile(apis, 50))/float64(percentile(bares, 50)))
				allAPIs, allBares = append(allAPIs, apis...), append(allBares, bares...)
				requests, reads, writes, billed, n = requests+rq, reads+rr, writes+wr, billed+bw, n+b.N
			}
		})
		if runErr != nil {
			res.err = runErr
			return res
		}
		res.raw = append(res.raw, benchLine("Endpoint/"+c.route, br))
	}
	// Background work a case started (launches) ends before the next case.
	e.queue.Wait()
	// p50 is the median of the runs' p50s; p99 is taken over every call of
	// every run, as one run has too few calls for a 99th percentile.
	res.apiP50, res.apiP99 = median(p50s), percentile(allAPIs, 99)
	res.bareP50, res.bareP99 = median(bp50s), percentile(allBares, 99)
	res.ratio = medianFloat(ratios)
	res.requests, res.readUnits, res.writeUnits = requests/float64(n), reads/float64(n), writes/float64(n)
	res.billedWrites = billed / float64(n)
	best := 0
	for sig, k := range signatures {
		if k > best {
			best, res.ops = k, opsBySig[sig]
		}
	}
	return res
}

// benchLine formats a result as `go test -bench` prints it, for benchstat.
func benchLine(name string, r testing.BenchmarkResult) string {
	name = strings.NewReplacer(" ", "_", "\t", "_").Replace(name)
	return fmt.Sprintf("Benchmark%s\t%s", name, r.String())
}

// percentile returns the p-th percentile (nearest rank) of ds.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// median returns the median of ds (the lower middle of an even count).
func median(ds []time.Duration) time.Duration {
	return percentile(ds, 50)
}

// medianFloat returns the median of fs.
func medianFloat(fs []float64) float64 {
	if len(fs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(fs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
