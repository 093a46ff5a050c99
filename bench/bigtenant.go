package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/bench/meter"
)

// The scale table (issue 30, docs/performance.md "Big tenants"): every
// family of request paths that once read a whole collection, called on one
// tenant grown to n contacts and one campaign of n recipients, for each n
// of -scale-sizes. Each call goes through the service's real HTTP handler
// in this process, so the heap it allocates can be read around it; the
// figures are whatever the code does when the benchmark runs.

// scaleCase is one row family of the scale table.
type scaleCase struct {
	family, label string
	method        string
	path          func(b *bigTenant) string
	body          func(b *bigTenant) any
	// skipped is how many entries a page by number passes over before its
	// page (0 for a first page).
	skipped func(b *bigTenant) int
	// search marks a search: it must pass over every match off its page
	// to count its exact total, so those matches (the response's total
	// less its limit) are entries it skips too.
	search bool
	// reference marks a path already O(page) before issue 30, measured for
	// comparison.
	reference bool
}

// searchedContact is the contact the searches look for: one of the two in
// five whom the audience's persona matches, so it is also an audience
// member.
const searchedContact = 5

func searchedEmail() string {
	return url.QueryEscape(person(bigRun, searchedContact)["mailId"].(string))
}

func none(*bigTenant) int { return 0 }

func scaleCases() []scaleCase {
	recipients := func(query string) func(b *bigTenant) string {
		return func(b *bigTenant) string {
			return "/api/campaigns/campaigns/" + b.campaignID + "/recipients" + query
		}
	}
	audience := func(query string) func(b *bigTenant) string {
		return func(b *bigTenant) string {
			return "/api/campaigns/audience-lists/" + b.audienceID + "/contacts" + query
		}
	}
	return []scaleCase{
		{family: "contacts", label: "`GET /contacts?search=<one email>&limit=100`", method: "GET", skipped: none, search: true,
			path: func(*bigTenant) string { return "/api/campaigns/contacts?limit=100&search=" + searchedEmail() }},
		{family: "contacts", label: "`GET /contact-lists/{id}/contacts?search=<one email>&limit=100`", method: "GET", skipped: none, search: true,
			path: func(b *bigTenant) string {
				return "/api/campaigns/contact-lists/" + b.listID + "/contacts?limit=100&search=" + searchedEmail()
			}},
		{family: "contacts", label: "`POST /enrichment/enrich` (one contact's name, company and LinkedIn URL)", method: "POST", skipped: none,
			path: func(*bigTenant) string { return "/api/campaigns/enrichment/enrich" },
			body: func(*bigTenant) any {
				p := person(bigRun, 7)
				return map[string]any{"firstname": p["firstName"], "lastname": p["lastName"], "company_name": p["companyName"], "linkedin_url": p["linkedinUrl"]}
			}},
		{family: "contacts", label: "`GET /contacts?page=<last>&limit=100`", method: "GET",
			path:    func(b *bigTenant) string { return fmt.Sprintf("/api/campaigns/contacts?limit=100&page=%d", b.n/100) },
			skipped: func(b *bigTenant) int { return b.n - 100 }},
		{family: "contacts", label: "`GET /contacts?limit=100` (page 1; O(page) before issue 30)", method: "GET", skipped: none, reference: true,
			path: func(*bigTenant) string { return "/api/campaigns/contacts?limit=100" }},
		{family: "audience", label: "audience contacts `?sortBy=updatedAt&limit=100`", method: "GET", skipped: none,
			path: audience("?sortBy=updatedAt&limit=100")},
		{family: "audience", label: "audience contacts `?search=<one email>&limit=100`", method: "GET", skipped: none, search: true,
			path: audience("?limit=100&search=" + searchedEmail())},
		{family: "recipients", label: "recipients `?sortBy=lastName`", method: "GET", skipped: none, path: recipients("?sortBy=lastName")},
		{family: "recipients", label: "recipients `?search=First7`", method: "GET", skipped: none, search: true, path: recipients("?search=First7")},
		{family: "recipients", label: "recipients `?search=First123&status=pending` (a search with a filter, few matches)", method: "GET", skipped: none, search: true,
			path: recipients("?search=First123&status=pending")},
		{family: "recipients", label: "recipients `?search=First7&status=pending` (a search with a filter, many matches)", method: "GET", skipped: none, search: true,
			path: recipients("?search=First7&status=pending")},
		{family: "recipients", label: "recipients `?groupBy=true`", method: "GET", skipped: none, path: recipients("?groupBy=true")},
		{family: "recipients", label: "recipients `?feedback=true` (none has feedback)", method: "GET", skipped: none, path: recipients("?feedback=true")},
		{family: "recipients", label: "recipients `?status=delivered` (none is)", method: "GET", skipped: none, path: recipients("?status=delivered")},
		{family: "recipients", label: "express-send `?status=delivered` (none is)", method: "GET", skipped: none,
			path: func(b *bigTenant) string {
				return "/api/campaigns/recipients/express-send/campaign/" + b.campaignID + "?status=delivered"
			}},
		{family: "recipients", label: "recipients, default page (O(page) before issue 30)", method: "GET", skipped: none, reference: true, path: recipients("")},
		{family: "wallet", label: "`GET /wallet?page=<last>&limit=100` (ledger of n/2 entries)", method: "GET",
			path:    func(b *bigTenant) string { return fmt.Sprintf("/api/campaigns/wallet?limit=100&page=%d", b.ledger/100) },
			skipped: func(b *bigTenant) int { return b.ledger/100*100 - 100 }},
		{family: "changes", label: "`GET /changes?limit=100`", method: "GET", skipped: none,
			path: func(*bigTenant) string { return "/api/campaigns/changes?limit=100" }},
	}
}

// scaleFigure is one path at one size: medians over the calls.
type scaleFigure struct {
	n         int
	requests  float64
	readUnits float64
	p50       time.Duration
	db        time.Duration // the median time of a call's DynamoDB reads
	heap      float64       // bytes allocated per call (median)
	bound     float64       // the read-unit target of the call
	matches   int           // a search's total
	ops       string        // the last call's operations (inProcessResult.ops)
	calls     int
	// timedOut: the call ran past scaleCallTimeout; the counts are what it
	// had done by then.
	timedOut bool
	err      error
}

// scaleCalls is how many calls each figure is the median of, but one
// when the first call takes longer than scaleSlowCall.
const (
	scaleCalls    = 3
	scaleSlowCall = 10 * time.Second
	// scaleCallTimeout ends a call that runs past API Gateway's 29 s: in
	// AWS the tenant would have had a 504 by then, and on DynamoDB Local
	// some paths at 100k run for many minutes.
	scaleCallTimeout = 30 * time.Second
)

// measureScale calls c's path scaleCalls times on b.
func measureScale(ctx context.Context, e *env, b *bigTenant, c scaleCase) scaleFigure {
	f := scaleFigure{n: b.n}
	var (
		rus, reqs, heaps []float64
		took, dbTime     []time.Duration
		bodyBytes        int
		body             []byte
	)
	for range scaleCalls {
		if len(took) > 0 && took[0] > scaleSlowCall {
			// One call of a minute says what three would, and three of
			// each such path would double the run at 100k.
			break
		}
		callCtx, cancel := context.WithTimeout(ctx, scaleCallTimeout)
		r, err := e.inProcess(callCtx, b.t, c.method, c.path(b), bodyOf(c, b))
		timedOut := errors.Is(callCtx.Err(), context.DeadlineExceeded)
		cancel()
		if timedOut {
			f.timedOut, f.requests, f.readUnits, f.heap = true, float64(r.counts.Requests), r.counts.ReadUnits, float64(r.alloc)
			return f
		}
		if err != nil {
			f.err = err
			return f
		}
		rus, reqs, heaps = append(rus, r.counts.ReadUnits), append(reqs, float64(r.counts.Requests)), append(heaps, float64(r.alloc))
		took, dbTime, bodyBytes, body, f.ops = append(took, r.took), append(dbTime, r.reads), len(r.body), r.body, r.ops
	}
	f.readUnits, f.requests, f.heap, f.p50, f.db, f.calls = medianFloat(rus), medianFloat(reqs), medianFloat(heaps), median(took), median(dbTime), len(took)
	// The page's items as DynamoDB would read them: the response body
	// stands for their size (JSON is close to DynamoDB's item size).
	skipped := c.skipped(b)
	if c.search {
		total, limit := pageTotals(body)
		f.matches, skipped = total, max(0, total-limit)
	}
	f.bound = math.Ceil(float64(bodyBytes)/4096) + float64(skipped)/40 + 10
	return f
}

// pageTotals finds a list response's total and limit, wherever its
// envelope keeps them (every list's pagination has both).
func pageTotals(body []byte) (total, limit int) {
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if t, ok := v["total"].(float64); ok {
				if l, ok := v["limit"].(float64); ok {
					total, limit = int(t), int(l)
					return
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	var v any
	if json.Unmarshal(body, &v) == nil {
		walk(v)
	}
	return total, limit
}

func bodyOf(c scaleCase, b *bigTenant) any {
	if c.body == nil {
		return nil
	}
	return c.body(b)
}

// inProcessResult is one call of the handler in this process.
type inProcessResult struct {
	counts meter.Counts
	took   time.Duration
	alloc  uint64
	body   []byte
	ops    string // the call's DynamoDB operations, in the order they ended
	// reads is the time the call's DynamoDB reads took, one after another.
	reads time.Duration
}

// callSequence names calls' operations, a Query by its index, a run of one
// operation once with its count ("Query ×3").
func callSequence(calls []meter.Call) string {
	var names []string
	for _, c := range calls {
		op := c.Op
		if q, ok := c.Input.(*dynamodb.QueryInput); ok && q.IndexName != nil {
			op += " " + *q.IndexName
		}
		names = append(names, op)
	}
	var out []string
	for i := 0; i < len(names); {
		j := i
		for j < len(names) && names[j] == names[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, fmt.Sprintf("%s ×%d", names[i], j-i))
		} else {
			out = append(out, names[i])
		}
		i = j
	}
	return strings.Join(out, ", ")
}

// inProcess calls the server's handler (the same one its HTTP listener
// serves, meter and all) without a socket, and returns the bytes the
// process allocated during the call: the heap one request takes. Nothing
// else runs meanwhile (the background queue is idle between calls).
func (e *env) inProcess(ctx context.Context, t tenant, method, path string, body any) (inProcessResult, error) {
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return inProcessResult{}, err
		}
		rd = bytes.NewReader(buf)
	}
	req := httptest.NewRequestWithContext(ctx, method, path, rd)
	req.Header.Set("x-api-key", t.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	w := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	e.srv.Handler.ServeHTTP(w, req)
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	u := e.last.Load()
	calls := u.Calls()
	r := inProcessResult{counts: u.Counts(), took: took, alloc: after.TotalAlloc - before.TotalAlloc, body: w.Body.Bytes(), ops: callSequence(calls)}
	for _, c := range calls {
		// The usage count's UpdateItem runs beside the reads.
		if c.Op != "UpdateItem" {
			r.reads += c.Took
		}
	}
	if w.Code != http.StatusOK {
		return r, fmt.Errorf("%s %s: status %d: %.300s", method, path, w.Code, w.Body.Bytes())
	}
	return r, nil
}

// scaleSizes parses -scale-sizes: sizes such as 1000 or 10k, comma-separated.
func scaleSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		mult := 1
		if strings.HasSuffix(f, "k") {
			f, mult = strings.TrimSuffix(f, "k"), 1000
		}
		n, err := strconv.Atoi(f)
		if n *= mult; err != nil || n < 100 || n%100 != 0 {
			return nil, fmt.Errorf("-scale-sizes: %q is not a size in hundreds (1000, 10k, 100k)", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}
