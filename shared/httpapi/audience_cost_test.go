package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// audienceCost is what one request, or one job run to its end, asks of
// DynamoDB: its operations in order and the read and write units
// DynamoDB Local reports for them.
type audienceCost struct {
	ops         []string
	read, write float64
}

func (c audienceCost) String() string {
	return fmt.Sprintf("%d requests (%s), %.1f read units, %.1f write units", len(c.ops), strings.Join(c.ops, " "), c.read, c.write)
}

// costOf is a cost of ops (names separated by spaces, "Op*n" for n of
// Op in a row) and units.
func costOf(ops string, read, write float64) audienceCost {
	c := audienceCost{read: read, write: write}
	for _, op := range strings.Fields(ops) {
		name, times, _ := strings.Cut(op, "*")
		n := 1
		if times != "" {
			n, _ = strconv.Atoi(times)
		}
		for range n {
			c.ops = append(c.ops, name)
		}
	}
	return c
}

// costOfCalls sums what calls asked.
func costOfCalls(calls []meter.Call) audienceCost {
	var c audienceCost
	for _, call := range calls {
		c.ops = append(c.ops, call.Op)
		c.read += call.ReadUnits
		c.write += call.WriteUnits
	}
	return c
}

// withoutUsageCount is an API call's DynamoDB calls without the one that
// counts it in its organization's usage (issue 34), which every
// authenticated call makes alongside its own, failing unless there is
// exactly one, of one write unit.
func withoutUsageCount(t *testing.T, name string, calls []meter.Call) []meter.Call {
	t.Helper()
	var out []meter.Call
	counted := 0
	for _, c := range calls {
		if in, ok := c.Input.(*dynamodb.UpdateItemInput); ok {
			if sk, ok := in.Key["SK"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(sk.Value, "USAGE#") {
				counted++
				if c.WriteUnits != 1 {
					t.Errorf("%s: counting the call cost %.1f write units, want 1", name, c.WriteUnits)
				}
				continue
			}
		}
		out = append(out, c)
	}
	if counted != 1 {
		t.Errorf("%s: counted %d times in the usage, want once", name, counted)
	}
	return out
}

// heldQueue keeps the jobs the use cases queue, for the test to run one
// after another under its meter.
type heldQueue struct {
	mu   sync.Mutex
	jobs []jobs.Job
}

func (q *heldQueue) Enqueue(_ context.Context, j jobs.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, j)
	return nil
}

func (q *heldQueue) next() (jobs.Job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.jobs) == 0 {
		return jobs.Job{}, false
	}
	j := q.jobs[0]
	q.jobs = q.jobs[1:]
	return j, true
}

// TestAudienceCost: every persona, audience and audience-member request,
// and each of the audience's jobs (the build, the copy into a contact
// list, the purge) run to its end, asks DynamoDB for exactly what it asked
// before the audience area became a slice of its own (issue 29): the same
// operations in the same order, and the same read and write units. The
// clock stands still on a whole second, so every timestamp, and so every
// item, has the same size from run to run.
func TestAudienceCost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := dynamo.New(m, testenv.Table(t), dynamo.WithClock(func() time.Time { return at }))
	orgID, key := testenv.Org(t, s, "audience-cost", 0)
	var people []person
	for i := range 150 {
		title := "Accountant"
		if i%5 < 2 {
			title = "Software Engineer"
		}
		people = append(people, person{fmt.Sprintf("p%03d@example.com", i), title, "US", "CA"})
	}
	seedContacts(t, s, orgID, people)
	gift, err := catalog.NewApp(s).CreateGift(ctx, orgID, catalog.Gift{Name: "Mug", Price: 12.5, Currency: "USD",
		Status: catalog.GiftAvailable, Inventory: catalog.Inventory{Total: 10, Available: 10}})
	if err != nil {
		t.Fatal(err)
	}
	queue := &heldQueue{}
	svc := service.New(s, service.Config{Logger: testenv.Quiet, Jobs: queue})
	h := httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet}).Handler(httpapi.Groups...)

	got := map[string]audienceCost{}
	var order []string
	// call sends a request under its own meter, records its cost as name
	// and returns its body's data (or the persona of a persona's create).
	call := func(name, method, path string, body any, status int) map[string]any {
		t.Helper()
		var raw []byte
		if body != nil {
			raw, _ = json.Marshal(body)
		}
		u := &meter.Usage{Record: true}
		r := httptest.NewRequest(method, path, strings.NewReader(string(raw))).WithContext(meter.WithUsage(ctx, u))
		r.Header.Set("x-api-key", key)
		if body != nil {
			r.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != status {
			t.Fatalf("%s: %d %s", name, w.Code, w.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name != "" {
			got[name], order = costOfCalls(withoutUsageCount(t, name, u.Calls())), append(order, name)
		}
		if d, ok := out["data"].(map[string]any); ok {
			return d
		}
		return out
	}
	// run runs the queued jobs, slice after slice, to their end, and
	// records their cost as name.
	run := func(name string) {
		t.Helper()
		u := &meter.Usage{Record: true}
		jctx := meter.WithUsage(ctx, u)
		for j, ok := queue.next(); ok; j, ok = queue.next() {
			for next := &j; next != nil; {
				if next, err = svc.RunJob(jctx, *next); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
		got[name], order = costOfCalls(u.Calls()), append(order, name)
	}

	call("", "GET", "/api/campaigns/icp-personas", nil, http.StatusOK) // the key and the profile, cached
	p := call("create persona", "POST", "/api/campaigns/icp-personas", map[string]any{
		"persona": map[string]any{"name": "Engineers", "job_titles": []string{"engineer"}, "contact_locations": []map[string]string{{"country": "US"}}},
		"company": map[string]any{"industry": "software"}, "metadata": map[string]any{"tags": []string{"tech"}}}, http.StatusCreated)
	icpID := p["icpPersona"].(map[string]any)["icpId"].(string)
	call("get persona", "GET", "/api/campaigns/icp-personas/"+icpID, nil, http.StatusOK)
	call("list personas", "GET", "/api/campaigns/icp-personas", nil, http.StatusOK)
	call("list personas by name", "GET", "/api/campaigns/icp-personas?sortBy=name&search=eng", nil, http.StatusOK)
	call("patch persona", "PATCH", "/api/campaigns/icp-personas/"+icpID, map[string]any{"persona": map[string]any{"description": "builders"}}, http.StatusOK)

	a := call("create audience at a price", "POST", "/api/campaigns/audience-lists",
		map[string]any{"name": "Eng", "icpId": icpID, "creditsPerContact": 4, "tags": []string{"q3"}}, http.StatusCreated)
	run("build")
	call("create audience by gift", "POST", "/api/campaigns/audience-lists", map[string]any{"name": "Eng by gift", "icpId": icpID, "giftId": gift.GiftID}, http.StatusCreated)
	call("create audience, cheapest gift", "POST", "/api/campaigns/audience-lists", map[string]any{"name": "Eng cheapest", "icpId": icpID}, http.StatusCreated)
	run("two more builds")
	id := a["audienceId"].(string)
	call("get audience", "GET", "/api/campaigns/audience-lists/"+id, nil, http.StatusOK)
	call("list audiences", "GET", "/api/campaigns/audience-lists", nil, http.StatusOK)
	call("list audiences of a persona", "GET", "/api/campaigns/audience-lists?icpId="+icpID+"&sortBy=totalMatch", nil, http.StatusOK)
	call("patch audience", "PATCH", "/api/campaigns/audience-lists/"+id, map[string]any{"name": "Engineers", "tags": []string{"q4"}}, http.StatusOK)
	members := "/api/campaigns/audience-lists/" + id + "/contacts"
	call("members", "GET", members, nil, http.StatusOK)
	call("members, deep page", "GET", members+"?page=4&limit=10", nil, http.StatusOK)
	call("members, oldest first", "GET", members+"?sortOrder=asc&limit=25", nil, http.StatusOK)
	call("members by updatedAt", "GET", members+"?sortBy=updatedAt", nil, http.StatusOK)
	call("members by contactId", "GET", members+"?sortBy=contactId&sortOrder=asc", nil, http.StatusOK)
	call("members by contactId, page 2", "GET", members+"?sortBy=contactId&page=2", nil, http.StatusOK)
	call("members searched", "GET", members+"?search=name01", nil, http.StatusOK)
	call("copy into a contact list", "POST", "/api/campaigns/audience-lists/"+id+"/contact-list", map[string]any{"name": "Engineers"}, http.StatusAccepted)
	run("copy")
	call("rebuild", "POST", "/api/campaigns/audience-lists/"+id+"/rebuild", nil, http.StatusAccepted)
	run("rebuild's build")
	call("delete audience", "DELETE", "/api/campaigns/audience-lists/"+id, nil, http.StatusOK)
	run("purge")
	call("delete persona", "DELETE", "/api/campaigns/icp-personas/"+icpID, nil, http.StatusOK)

	// The figures before the move (the audience area in shared/dynamo and
	// shared/service), but for what issue 30 changed: members by updatedAt,
	// contactId page 2 and search read their order's keys or the search's
	// entries (2 read units less each here, and O(page) rather than
	// O(audience)); each member is written with its Order entry and its
	// member entries (one, and one per word: 6 each here, 366 write units
	// a build of 60; DynamoDB Local reports the build's transaction as 6
	// write units, so its Order entries do not show), which the
	// rebuild's clearing and the purge remove too (BatchWriteItem*15
	// more each, 420 write units more), and which make the member items
	// the copy reads ~40 bytes longer (2 read units more). "Op*n" is n of
	// Op in a row: the copy adds each member with a transaction of its own
	// (the contact area's AddContactIDsToList). A build reads the
	// organization's contact items, which name their search entries since
	// issue 30 (sx, ~60-100 bytes a contact): a read unit more per build.
	want := map[string]audienceCost{
		"create persona":                 costOf("TransactWriteItems", 0, 6),
		"get persona":                    costOf("GetItem", 1, 0),
		"list personas":                  costOf("GetItem Query", 2, 0),
		"list personas by name":          costOf("Query", 0.5, 0),
		"patch persona":                  costOf("GetItem PutItem", 1, 1),
		"create audience at a price":     costOf("GetItem UpdateItem GetItem TransactWriteItems", 2, 9),
		"build":                          costOf("GetItem GetItem Query GetItem BatchWriteItem*15 TransactWriteItems", 13.5, 372),
		"create audience by gift":        costOf("UpdateItem GetItem BatchGetItem TransactWriteItems", 2, 9),
		"create audience, cheapest gift": costOf("UpdateItem GetItem Query Query TransactWriteItems", 1.5, 9),
		"two more builds": costOf("GetItem GetItem Query GetItem BatchWriteItem*15 TransactWriteItems GetItem GetItem Query GetItem BatchWriteItem*15 TransactWriteItems",
			27, 744),
		"get audience":                 costOf("GetItem", 1, 0),
		"list audiences":               costOf("GetItem Query", 2, 0),
		"list audiences of a persona":  costOf("Query", 0.5, 0),
		"patch audience":               costOf("GetItem UpdateItem", 1, 1),
		"members":                      costOf("Query BatchGetItem", 7, 0),
		"members, deep page":           costOf("Query BatchGetItem", 7.5, 0),
		"members, oldest first":        costOf("Query BatchGetItem", 14, 0),
		"members by updatedAt":         costOf("GetItem Query BatchGetItem", 7.5, 0),
		"members by contactId":         costOf("GetItem Query", 2.5, 0),
		"members by contactId, page 2": costOf("GetItem Query BatchGetItem", 7.5, 0),
		"members searched":             costOf("GetItem Query BatchGetItem", 2, 0),
		"copy into a contact list":     costOf("UpdateItem GetItem PutItem TransactWriteItems", 1, 8),
		// The copy's chunk opens the contacts count before its writes
		// (UpdateItem, one unit: Store.OpenCounts).
		"copy": costOf("GetItem Query GetItem BatchGetItem UpdateItem TransactWriteItems*60 BatchExecuteStatement UpdateItem DeleteItem",
			74, 124),
		"rebuild": costOf("UpdateItem GetItem GetItem UpdateItem", 2, 3),
		"rebuild's build": costOf("GetItem Query BatchWriteItem*3 Query BatchWriteItem*15 UpdateItem GetItem*2 Query GetItem BatchWriteItem*15 TransactWriteItems",
			40.5, 913),
		"delete audience": costOf("GetItem TransactWriteItems", 1, 6),
		"purge":           costOf("Query BatchWriteItem*3 Query BatchWriteItem*15 DeleteItem", 26, 542),
		"delete persona":  costOf("TransactWriteItems", 0, 6),
	}
	for _, name := range order {
		t.Logf("%-32s %s", name, got[name])
		w := want[name]
		g := got[name]
		if strings.Join(g.ops, " ") != strings.Join(w.ops, " ") || math.Abs(g.read-w.read) > 1e-9 || math.Abs(g.write-w.write) > 1e-9 {
			t.Errorf("%s: %s\nwant %s", name, g, w)
		}
	}
}
