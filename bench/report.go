package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"time"
)

// report is everything one run measured.
type report struct {
	opts          options
	started       time.Time
	took          time.Duration
	loadBefore    string
	loadAfter     string
	dynamoDBLocal string
	endpoints     []endpointResult
	unlisted      []string
	binaries      []binarySize
	coldStarts    []coldStart
	rieInits      []rieInit
	// rieNote is the emulator's version, or why the init durations were not measured.
	rieNote string
	system  []systemFigure
	memory  map[string]int
	raw     []string
	// emptyP50 is the p50 of a request the server answers without the
	// service.
	emptyP50 time.Duration
}

// Targets that the whole-system figures are held to (docs/performance.md).
const (
	binaryTarget    = 10 << 20
	coldStartTarget = 50 * time.Millisecond
)

func verdict(ok bool) string {
	if ok {
		return "pass"
	}
	return "**miss**"
}

// markdown renders the report.
func (r report) markdown() string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# make bench: speed and cost of the Gift Campaign Service\n\n")
	w("Measured %s on %s (%s/%s, %d cores, %s), %s, DynamoDB Local %s; load average %s at the start, %s at the end; the run took %s.\n",
		r.started.Format("2006-01-02 15:04 UTC"), cpuModel(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), hostNote(),
		runtime.Version(), r.dynamoDBLocal, r.loadBefore, r.loadAfter, r.took.Round(time.Second))
	w("Endpoint figures are medians of %d runs (%d calls per run unless the row says otherwise); cold starts are medians of %d starts per function; each bulk scenario runs %s, as its row says: one run of all of them takes most of the 10 minutes `make bench` may take.", r.opts.runs, r.opts.calls, r.opts.coldRuns, times(r.opts.bulkRuns))
	if r.opts.scale != 1 {
		w(" **The bulk scenarios ran at %.3g× the reference sizes: a development run, not the reference figures.**", r.opts.scale)
	}
	w("\n\n")

	w("## Endpoints\n\n")
	w("One call at a time through the HTTP server on a loopback port, API key cache warm; API ÷ bare is the median over the runs of each run's ratio of p50s. *Requests* and *units* are per call, as DynamoDB Local reports them with ReturnConsumedCapacity=TOTAL; *WRU billed* is what AWS would bill: the same, except for TransactWriteItems, whose units DynamoDB Local under-reports and which are estimated from the requests (2 units per KB of each item written or checked, plus index entries of puts). *Bare* is the same DynamoDB requests without the service: replayed one after another on the same client for endpoints that only read (R); for endpoints that write, whose requests cannot be replayed unchanged (their conditions would now fail), the time the call itself spent waiting for DynamoDB (W).\n\n")
	w("| endpoint | DynamoDB requests per call | target | | RRU | WRU reported | WRU billed (est.) | API p50 | API p99 | bare p50 | bare p99 | API ÷ bare p50 | target | |\n")
	w("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
	for _, e := range r.endpoints {
		name := "`" + e.c.route + "`"
		if !e.c.spec {
			name += " (added)"
		}
		if e.c.calls > 0 && e.c.calls != r.opts.calls {
			name += fmt.Sprintf(" (%d calls per run)", e.c.calls)
		}
		switch {
		case !e.served:
			w("%s", row(name, "not served yet", e.c.target.label))
			continue
		case e.c.prepare == nil:
			w("%s", row(name, "served; no measurement written yet", e.c.target.label))
			continue
		case e.err != nil:
			w("%s", row(name, "failed: "+oneLine(e.err.Error()), e.c.target.label))
			continue
		}
		reqVerdict := ""
		if e.c.target.ok != nil {
			reqVerdict = verdict(e.targetMet)
		}
		method := "R"
		if !e.replayed {
			method = "W"
		}
		ratio := e.ratio
		w("| %s | %s (%s) | %s | %s | %s | %s | %s | %s | %s | %s %s | %s | %.2f | ≤ %.2f | %s |\n",
			name, num(e.requests), opsNote(e), dash(e.c.target.label), reqVerdict, num(e.readUnits), num(e.writeUnits), num(e.billedWrites),
			ms(e.apiP50), ms(e.apiP99), ms(e.bareP50), method, ms(e.bareP99), ratio, overheadTarget, verdict(ratio <= overheadTarget))
	}
	for _, u := range r.unlisted {
		w("%s", row("`"+u+"`", "served; not in the benchmark's list", ""))
	}
	if r.emptyP50 > 0 {
		w("\nAn empty request through the same client, server and loopback, answered without the service, takes %s (p50): the floor under every API figure. The rest of API − bare is the service's own work per request: routing, the API-key cache, decoding items, encoding JSON, the request log.\n", ms(r.emptyP50))
	}
	w("\n")

	w("## Whole system\n\n")
	w("| figure | measured | target | |\n|---|---|---|---|\n")
	for _, bs := range r.binaries {
		if bs.err != nil {
			w("| bootstrap binary, %s (linux/arm64) | %s | ≤ 10 MB | |\n", bs.function, bs.err)
			continue
		}
		w("| bootstrap binary, %s (linux/arm64) | %.1f MB | ≤ 10 MB | %s |\n", bs.function, float64(bs.bytes)/(1<<20), verdict(bs.bytes <= binaryTarget))
	}
	for _, cs := range r.coldStarts {
		if cs.err != nil {
			w("| cold start, %s | %s | ≤ 50 ms | |\n", cs.function, oneLine(cs.err.Error()))
			continue
		}
		w("| cold start, %s: process start to first answer (`%s`) | %s, of which %s before the first event (runs: %s) | ≤ 50 ms | %s |\n",
			cs.function, cs.route, ms(cs.median), ms(cs.initMedian), msList(cs.runs), verdict(cs.median <= coldStartTarget))
	}
	for _, f := range r.system {
		w("| %s | %s | %s | %s |\n", f.figure, f.measured, dash(f.target), f.verdict)
	}
	if len(r.system) == 0 {
		w("| bulk scenarios | not run (-heavy=false or -only) | | |\n")
	}
	w("\nCold start: each function is built for this machine with the Lambda build's flags and started as a process against a Lambda Runtime API served by the benchmark, which hands it one API Gateway (HTTP API, payload 2.0) event; the time runs from starting the process to receiving the function's 200 answer, so it includes Go's start, the configuration and client set-up, the API-key lookup and the endpoint's own DynamoDB requests. Lambda's own sandbox start (download, unpack, microVM) is not in it.\n\n")
	for i, f := range r.system {
		if f.method != "" && (i == 0 || r.system[i-1].method != f.method) {
			w("%s\n\n", f.method)
		}
	}

	r.writeRIEInits(w)
	r.writeCosts(w)
	return b.String()
}

// writeRIEInits renders the init durations under the Lambda Runtime Interface Emulator, each beside the
// same function's cold start above.
func (r report) writeRIEInits(w func(string, ...any)) {
	w("## Init duration under the Lambda Runtime Interface Emulator\n\n")
	if len(r.rieInits) == 0 {
		w("%s\n\n", r.rieNote)
		return
	}
	w("Each function's bootstrap, built for this machine with the Lambda build's flags, started under AWS's Lambda Runtime Interface Emulator (aws-lambda-rie %s) with the template's environment for it, as `make test`'s TestFunctionsUnderRIE starts it (DynamoDB Local, the SES emulator, a table of the benchmark's), and sent one event from events/; medians of %d starts. The init duration is the emulator's `INIT REPORT(durationMs: …)` line: from starting the bootstrap to its first request for an event, the part of a Lambda cold start the function's own code decides. (This emulator's REPORT line also prints an *Init Duration*, but it times only the emulator handing the init request on, well under a millisecond, so it is not used.) Beside it, the cold start's part before the first event from the table above, measured against the benchmark's own Runtime API.\n\n", r.rieNote, r.opts.coldRuns)
	w("| function | event | init duration under RIE | runs | cold start above: before the first event |\n|---|---|---:|---|---:|\n")
	before := map[string]string{}
	for _, cs := range r.coldStarts {
		if cs.err == nil {
			before[cs.function] = ms(cs.initMedian)
		}
	}
	for _, ri := range r.rieInits {
		if ri.err != nil {
			w("| %s | %s | %s | | %s |\n", ri.function, dash(ri.event), oneLine(ri.err.Error()), dash(before[ri.function]))
			continue
		}
		w("| %s | `%s` | %s | %s | %s |\n", ri.function, ri.event, ms(ri.median), msList(ri.runs), dash(before[ri.function]))
	}
	w("\n")
}

// writeCosts renders the cost per million calls and the price table.
func (r report) writeCosts(w func(string, ...any)) {
	w("## Cost per million calls (US dollars)\n\n")
	w("Lambda arm64 at the function's configured memory (template.yaml), billed for the API p50 above rounded up to the millisecond, plus its per-request price; one HTTP API request; DynamoDB on-demand request units as measured (writes: WRU billed, est.). Latency here is DynamoDB Local on a shared 2-core machine, so the Lambda part is an upper bound of what AWS would bill; the request-unit parts do not depend on the machine.\n\n")
	w("| endpoint | memory | billed ms | Lambda | HTTP API | DynamoDB reads | DynamoDB writes | total |\n")
	w("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, e := range r.endpoints {
		if !e.served || e.c.prepare == nil || e.err != nil {
			continue
		}
		mb := r.memory[e.group.String()]
		c := costPerMillion(e.apiP50, mb, e.readUnits, e.billedWrites)
		w("| `%s` | %d MB | %.0f | %s | %s | %s | %s | **%s** |\n", e.c.route, mb, math.Ceil(float64(e.apiP50)/float64(time.Millisecond)),
			usd(c.lambda), usd(c.http), usd(c.reads), usd(c.writes), usd(c.total()))
	}
	w("\nPrices (%s, %s):\n\n| item | unit | USD |\n|---|---|---:|\n", pricesRegion, pricesAsOf)
	for _, p := range prices {
		w("| %s | %s | %s |\n", p.item, p.unit, strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.10f", p.usd), "0"), "."))
	}
	w("\nRaw per-run results, in `go test -bench` format: bench/out/raw.txt (compare two runs with `benchstat old.txt new.txt`).\n")
}

// opsNote names the usual operations of a call, and those of the call that
// made the most requests when it made more.
func opsNote(e endpointResult) string {
	if e.most.total() > e.ops.total() {
		return fmt.Sprintf("%s; at most %d: %s", e.ops, e.most.total(), e.most)
	}
	return e.ops.String()
}

// times says how often something ran.
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// endpointColumns is the number of columns of the endpoint table.
const endpointColumns = 14

// row is a row of the endpoint table for an endpoint without figures.
func row(name, note, target string) string {
	cells := make([]string, endpointColumns)
	cells[0], cells[1], cells[2] = name, note, target
	return "| " + strings.Join(cells, " | ") + " |\n"
}

func ms(d time.Duration) string {
	if d < time.Millisecond {
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func msList(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond))
	}
	return strings.Join(parts, ", ") + " ms"
}

// num prints a per-call mean without noise: integers as integers.
func num(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.2f", f)
}

func usd(f float64) string { return fmt.Sprintf("$%.2f", f) }

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", "\\|")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// cpuModel names the processor, from /proc/cpuinfo.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// hostNote says the machine is shared, which the load averages quantify.
func hostNote() string {
	return "shared with other work"
}
