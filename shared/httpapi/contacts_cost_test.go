package httpapi_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// contactCost is what one call of the contacts API asks of DynamoDB: its
// requests by operation (sorted: a bulk add writes concurrently), the
// items of its transactions and the write units AWS would bill, estimated
// as the benchmark does (bench/units.go): a unit per KB of each item a
// plain write or an insert statement puts and of its Slim entry, twice
// that for a transaction's items, a unit per KB of the item a counter
// statement updates. What authentication and the rate limiter read and
// write is left out: it is cached or leased, so it lands in some calls and
// not others.
type contactCost struct {
	requests string
	items    int
	units    float64
}

func (c contactCost) String() string {
	return fmt.Sprintf("%s; %d transaction items; %.0f write units", c.requests, c.items, c.units)
}

// meteredContactsAPI is an API over a store whose every request is
// metered, and the usage of the call under way.
type meteredContactsAPI struct {
	*testenv.API
	store *dynamo.Store
	queue *jobs.Local
	usage atomic.Pointer[meter.Usage]
	raw   dynamo.DB
}

func newMeteredContactsAPI(t *testing.T) (*meteredContactsAPI, string) {
	t.Helper()
	return newMeteredAPI(t, 0)
}

// newMeteredAPI is newMeteredContactsAPI for an organization holding
// credits.
func newMeteredAPI(t *testing.T, credits int64) (*meteredContactsAPI, string) {
	t.Helper()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Store(t).Table())
	orgID, key := testenv.Org(t, s, "cost", credits)
	queue := jobs.NewLocal(testenv.Quiet)
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Jobs: queue})
	srv := httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet, KeyCacheTTL: time.Hour})
	a := &meteredContactsAPI{store: s, queue: queue, raw: testenv.Client(t)}
	a.usage.Store(&meter.Usage{})
	h := srv.Handler(httpapi.Groups...)
	a.API = testenv.HandlerAPI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(meter.WithUsage(r.Context(), a.usage.Load())))
	}), key)
	// The jobs a call starts run in the background, metered with the
	// call (the list delete's).
	queue.Start(func(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
		return svc.RunJob(meter.WithUsage(ctx, a.usage.Load()), j)
	})
	return a, orgID
}

// call runs one request, which must answer status, and returns its cost
// with that of the jobs it started.
func (a *meteredContactsAPI) call(t *testing.T, status int, method, path string, body any) (contactCost, testenv.Response) {
	t.Helper()
	u := &meter.Usage{Record: true}
	a.usage.Store(u)
	res := a.Do(method, path, body)
	a.queue.Wait()
	a.usage.Store(&meter.Usage{})
	if res.Status != status {
		t.Fatalf("%s %s: %d %s; want %d", method, path, res.Status, res.Body, status)
	}
	return a.costOf(t, u.Calls()), res
}

func (a *meteredContactsAPI) costOf(t *testing.T, calls []meter.Call) contactCost {
	t.Helper()
	var c contactCost
	var ops []string
	for _, call := range calls {
		// The rate counters, and the count of the call in the month's
		// usage (one UpdateItem of 1 write unit a call, which
		// TestAudienceCost holds), are the API's, not the contacts'.
		if up, ok := call.Input.(*dynamodb.UpdateItemInput); ok && (strings.HasPrefix(attrOf(up.Key, "SK"), "RATE#") ||
			strings.HasPrefix(attrOf(up.Key, "SK"), "USAGE#")) {
			continue
		}
		if g, ok := call.Input.(*dynamodb.GetItemInput); ok && (attrOf(g.Key, "SK") == "PROFILE" || strings.HasPrefix(attrOf(g.Key, "PK"), "KEY#")) {
			continue
		}
		ops = append(ops, call.Op)
		switch in := call.Input.(type) {
		case *dynamodb.BatchExecuteStatementInput:
			for _, st := range in.Statements {
				if it, ok := dynamo.InsertedItem(st); ok {
					c.units += putUnits(it)
				} else if k, ok := dynamo.UpdatedKey(st); ok {
					c.units += kbUnits(a.storedSize(t, k))
				}
			}
		case *dynamodb.TransactWriteItemsInput:
			if call.Err != nil {
				continue
			}
			for _, it := range in.TransactItems {
				c.items++
				switch {
				case it.Put != nil:
					c.units += kbUnits(dynamo.ItemSize(it.Put.Item)) + putUnits(it.Put.Item)
				case it.Update != nil:
					c.units += 2 * kbUnits(a.storedSize(t, it.Update.Key))
				case it.ConditionCheck != nil:
					c.units += 2 * kbUnits(a.storedSize(t, it.ConditionCheck.Key))
				default:
					c.units += 2
				}
			}
		default:
			c.units += call.WriteUnits
		}
	}
	slices.Sort(ops)
	var parts []string
	for i := 0; i < len(ops); {
		j := i
		for j < len(ops) && ops[j] == ops[i] {
			j++
		}
		parts = append(parts, fmt.Sprintf("%s×%d", ops[i], j-i))
		i = j
	}
	c.requests = strings.Join(parts, ", ")
	return c
}

// storedSize is the size of the item at key as it is now (0 when gone).
func (a *meteredContactsAPI) storedSize(t *testing.T, k map[string]types.AttributeValue) int {
	t.Helper()
	table := a.store.Table()
	out, err := a.raw.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: &table, Key: k})
	if err != nil {
		t.Fatal(err)
	}
	return dynamo.ItemSize(out.Item)
}

// putUnits bills a put of it: its KBs and, when it has a Slim entry, that
// entry's (a small one: keys and the search text).
func putUnits(it map[string]types.AttributeValue) float64 {
	units := kbUnits(dynamo.ItemSize(it))
	if it["LPK"] != nil {
		units++
	}
	return units
}

func kbUnits(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }

func attrOf(it map[string]types.AttributeValue, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// TestContactCosts: what each operation of the contacts API asks of
// DynamoDB, as it did before the contacts became a slice of their own
// (issue 29): requests by operation, transaction items and write units.
// An import of 100 new contacts is 2 BatchGetItems (the list, then the
// emails' slots) and 5 BatchExecuteStatements (4 batches of 25 inserts,
// the chunk's two counters): 202 write units, 2.02 a contact, before the
// search entries (issue 30).
//
// The search entries (shared/dynamo/contacts_search.go) cost writes: each
// contact here has 4 tokens (first, per, com, exa) and a LinkedIn entry,
// so an import writes 5 more items a contact (20 BatchWriteItems of 25):
// 7.02 units a contact. A write that changes a contact's words, lists or
// first list moves its entries in its transaction (2 units each): adding
// a contact to another list, removing it, changing its email, deleting
// it, and a list's delete job, cost 10 to 12 units more a contact. The
// reads they save: a search, a list's search and an enrichment read one
// token's or one URL's entries instead of the whole index (one Query; a
// list's search no longer reads the list's members). docs/performance.md
// weighs the two.
func TestContactCosts(t *testing.T) {
	t.Parallel()
	api, _ := newMeteredContactsAPI(t)
	base := "/api/campaigns/contact-lists"
	// The key and the organization's profile are read once, then cached.
	api.call(t, http.StatusOK, "GET", base, nil)

	newList := func(name string) (contactCost, string) {
		c, res := api.call(t, http.StatusCreated, "POST", base, map[string]any{"name": name})
		var body struct {
			Data struct {
				ListID string `json:"listId"`
			} `json:"data"`
		}
		res.JSON(t, &body)
		return c, body.Data.ListID
	}
	createList, leads := newList("Leads")
	_, vips := newList("VIPs")
	contacts := make([]map[string]any, 100)
	for k := range contacts {
		contacts[k] = map[string]any{
			"mailId": fmt.Sprintf("person%d@example.com", k), "firstName": fmt.Sprintf("First%d", k), "lastName": "Person",
			"companyName": fmt.Sprintf("Company %d", k%7), "jobTitle": "Director", "phoneNumber": fmt.Sprintf("+1-555-%07d", k),
			"linkedinUrl": fmt.Sprintf("https://www.linkedin.com/in/person-%d", k), "tags": []string{"bench"},
			"address": map[string]any{"street": fmt.Sprintf("%d Main Street", k+1), "city": "Springfield", "state": "IL", "zipCode": "62701", "country": "US"},
		}
	}
	importNew, res := api.call(t, http.StatusOK, "POST", base+"/"+leads+"/contacts", map[string]any{"contacts": contacts})
	var added bulkResponse
	res.JSON(t, &added)
	ids := make([]string, len(added.Data.Items))
	for i, it := range added.Data.Items {
		ids[i] = it.ContactID
	}
	importAgain, _ := api.call(t, http.StatusOK, "POST", base+"/"+leads+"/contacts", map[string]any{"contacts": contacts[:50]})
	byIDs, _ := api.call(t, http.StatusOK, "POST", base+"/"+vips+"/contacts", map[string]any{"contactIds": ids[:60]})
	mergeIntoNewList, _ := api.call(t, http.StatusOK, "POST", base+"/"+vips+"/contacts", map[string]any{"contacts": contacts[90:]})

	contactsPage, _ := api.call(t, http.StatusOK, "GET", "/api/campaigns/contacts", nil)
	deepPage, _ := api.call(t, http.StatusOK, "GET", "/api/campaigns/contacts?page=5&limit=10", nil)
	fullPage, _ := api.call(t, http.StatusOK, "GET", "/api/campaigns/contacts?limit=100", nil)
	search, _ := api.call(t, http.StatusOK, "GET", "/api/campaigns/contacts?search=first1", nil)
	members, _ := api.call(t, http.StatusOK, "GET", base+"/"+vips+"/contacts", nil)
	deepMembers, _ := api.call(t, http.StatusOK, "GET", base+"/"+vips+"/contacts?page=4&limit=10", nil)
	memberSearch, _ := api.call(t, http.StatusOK, "GET", base+"/"+vips+"/contacts?search=first1", nil)
	getContact, _ := api.call(t, http.StatusOK, "GET", "/api/campaigns/contacts/"+ids[3], nil)
	patch, _ := api.call(t, http.StatusOK, "PATCH", "/api/campaigns/contacts/"+ids[3], map[string]any{"notes": "met at the fair"})
	patchEmail, _ := api.call(t, http.StatusOK, "PATCH", "/api/campaigns/contacts/"+ids[4], map[string]any{"mailId": "renamed@example.com"})
	deleteContact, _ := api.call(t, http.StatusOK, "DELETE", "/api/campaigns/contacts/"+ids[5], nil)
	lists, _ := api.call(t, http.StatusOK, "GET", base, nil)
	getList, _ := api.call(t, http.StatusOK, "GET", base+"/"+vips, nil)
	patchList, _ := api.call(t, http.StatusOK, "PATCH", base+"/"+vips, map[string]any{"description": "the best"})
	remove, _ := api.call(t, http.StatusOK, "DELETE", base+"/"+vips+"/contacts/"+ids[6], nil)
	enrichLinkedin, _ := api.call(t, http.StatusOK, "POST", "/api/campaigns/enrichment/enrich",
		map[string]any{"linkedin_url": "https://linkedin.com/in/person-42/"})
	enrichName, _ := api.call(t, http.StatusOK, "POST", "/api/campaigns/enrichment/enrich",
		map[string]any{"firstname": "First42", "lastname": "Person", "company_name": "Company 0"})
	deleteList, _ := api.call(t, http.StatusOK, "DELETE", base+"/"+leads, nil)

	// A contact's search entries are word entries (decision 0008's
	// addendum): these contacts' last name (person) and email
	// (person<k>@…) share a token, so each has one entry more than it had
	// token entries (6 with its LinkedIn entry), and every write that
	// moves them one item (2 units in a transaction) more.
	// Every import chunk that writes opens the contacts count before its
	// writes (UpdateItem) and closes it in its count (a statement of the
	// batch: one more when the chunk created nothing): one write unit
	// each (Store.OpenCounts).
	for _, tt := range []struct {
		name string
		got  contactCost
		want string
	}{
		{"create a list", createList, "PutItem×1; 0 transaction items; 1 write units"},
		{"import 100 new contacts", importNew, "BatchExecuteStatement×5, BatchGetItem×2, BatchWriteItem×24, UpdateItem×1; 0 transaction items; 803 write units"},
		{"import 50 of them again", importAgain, "BatchExecuteStatement×1, BatchGetItem×2, PutItem×50, UpdateItem×1; 0 transaction items; 52 write units"},
		{"add 60 by id to another list", byIDs, "BatchExecuteStatement×1, BatchGetItem×1, GetItem×1, TransactWriteItems×60, UpdateItem×1; 480 transaction items; 1023 write units"},
		{"import 10 known contacts into that list", mergeIntoNewList, "BatchExecuteStatement×1, BatchGetItem×2, TransactWriteItems×10, UpdateItem×1; 80 transaction items; 173 write units"},
		{"GET /contacts", contactsPage, "BatchGetItem×1, Query×1; 0 transaction items; 0 write units"},
		// The total first (whether the page is nearer the oldest end),
		// then the counted skip and the page's keys: two Queries.
		{"GET /contacts page 5 of 10", deepPage, "BatchGetItem×2, Query×2; 0 transaction items; 0 write units"},
		{"GET /contacts?limit=100", fullPage, "BatchGetItem×2, Query×1; 0 transaction items; 0 write units"},
		// The first search of an organization in a process reads whether
		// its contacts-search step is done (GetItem, then remembered).
		{"GET /contacts?search=", search, "BatchGetItem×1, GetItem×1, Query×1; 0 transaction items; 0 write units"},
		{"a list's members", members, "BatchGetItem×1, GetItem×1, Query×2; 0 transaction items; 0 write units"},
		{"a list's members page 4 of 10", deepMembers, "BatchGetItem×1, GetItem×1, Query×2; 0 transaction items; 0 write units"},
		{"a list's members ?search=", memberSearch, "BatchGetItem×1, GetItem×1, Query×1; 0 transaction items; 0 write units"},
		{"GET a contact", getContact, "GetItem×1; 0 transaction items; 0 write units"},
		{"PATCH a contact's notes", patch, "GetItem×1, TransactWriteItems×1; 1 transaction items; 3 write units"},
		{"PATCH a contact's email", patchEmail, "BatchGetItem×1, GetItem×1, TransactWriteItems×1; 10 transaction items; 23 write units"},
		{"DELETE a contact", deleteContact, "GetItem×1, TransactWriteItems×1; 12 transaction items; 24 write units"},
		{"GET /contact-lists", lists, "Query×1; 0 transaction items; 0 write units"},
		{"GET a list", getList, "GetItem×1; 0 transaction items; 0 write units"},
		{"PATCH a list", patchList, "GetItem×1, UpdateItem×1; 0 transaction items; 1 write units"},
		{"remove a contact from a list", remove, "GetItem×2, TransactWriteItems×1; 9 transaction items; 19 write units"},
		{"enrich by LinkedIn URL", enrichLinkedin, "BatchGetItem×1, Query×1; 0 transaction items; 0 write units"},
		{"enrich by name and company", enrichName, "BatchGetItem×1, Query×1; 0 transaction items; 0 write units"},
		{"DELETE a list of 99, its job included", deleteList, "BatchGetItem×1, DeleteItem×1, GetItem×1, Query×6, TransactWriteItems×100, UpdateItem×1; 1357 transaction items; 2820 write units"},
	} {
		t.Logf("%-45s %s", tt.name, tt.got)
		if tt.want != "" && tt.got.String() != tt.want {
			t.Errorf("%s: %s; want %s", tt.name, tt.got, tt.want)
		}
	}
}
