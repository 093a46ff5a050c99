package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// cursorList is one list endpoint as the cursor tests page it: where its
// items, their ids and its nextCursor are in the answer.
type cursorList struct {
	name, path  string
	items, id   string // the items' path in the answer (dots), and their id's field
	next, total string // nextCursor's and the total's paths
}

// pathOf reads a dotted path of a decoded JSON answer.
func pathOf(m map[string]any, path string) any {
	var v any = m
	for _, part := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[part]
	}
	return v
}

// cursorPageOf is one page of a list: its item ids, nextCursor and total.
type cursorPageOf struct {
	ids   []string
	next  string
	total float64
}

// getPage reads one page of l with query (which must answer 200).
func getPage(t *testing.T, api *testenv.API, l cursorList, query url.Values) cursorPageOf {
	t.Helper()
	res := api.Do("GET", l.path+"?"+query.Encode(), nil)
	if res.Status != http.StatusOK {
		t.Fatalf("%s?%s: %d %s", l.path, query.Encode(), res.Status, res.Body)
	}
	m := res.Map(t)
	var p cursorPageOf
	items, _ := pathOf(m, l.items).([]any)
	if groups, ok := pathOf(m, l.items).(map[string]any); ok {
		// groupBy=true: the page's recipients by status, in the
		// journey's order.
		for _, st := range gifting.RecipientStatuses {
			g, _ := groups[string(st)].([]any)
			items = append(items, g...)
		}
	}
	for _, it := range items {
		p.ids = append(p.ids, it.(map[string]any)[l.id].(string))
	}
	next, ok := pathOf(m, l.next).(string)
	if !ok {
		t.Fatalf("%s?%s: no nextCursor at %s: %s", l.path, query.Encode(), l.next, res.Body)
	}
	p.next = next
	p.total, _ = pathOf(m, l.total).(float64)
	return p
}

// withParams is q with more parameters set.
func withParams(q url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}

// walkByNumber reads l page by page by number, limit items a page, and
// returns every id in order and the first page's total.
func walkByNumber(t *testing.T, api *testenv.API, l cursorList, q url.Values, limit int) ([]string, float64) {
	t.Helper()
	var all []string
	first := getPage(t, api, l, withParams(q, "limit", fmt.Sprint(limit)))
	pages := (int(first.total) + limit - 1) / limit
	all = append(all, first.ids...)
	for n := 2; n <= pages; n++ {
		all = append(all, getPage(t, api, l, withParams(q, "limit", fmt.Sprint(limit), "page", fmt.Sprint(n))).ids...)
	}
	return all, first.total
}

// walkByCursor reads l from its first page by nextCursor to the end, limit
// items a page, calling between (if not nil) after each page. It checks
// every page's total is the first's.
func walkByCursor(t *testing.T, api *testenv.API, l cursorList, q url.Values, limit int, between func(page int)) []string {
	t.Helper()
	p := getPage(t, api, l, withParams(q, "limit", fmt.Sprint(limit)))
	all, total := p.ids, p.total
	for n := 1; p.next != ""; n++ {
		if n > 500 {
			t.Fatalf("%s: still paging after %d pages", l.name, n)
		}
		if between != nil {
			between(n)
		}
		p = getPage(t, api, l, withParams(q, "limit", fmt.Sprint(limit), "cursor", p.next))
		if between == nil && p.total != total {
			t.Errorf("%s: a cursor page's total is %v, the first page's %v", l.name, p.total, total)
		}
		if len(p.ids) == 0 {
			t.Errorf("%s: a nextCursor led to an empty page", l.name)
		}
		all = append(all, p.ids...)
	}
	return all
}

// cursorFixture is an organization with a few items in each cursor list.
type cursorFixture struct {
	api        *testenv.API
	store      *dynamo.Store
	orgID      string
	campaignID string
	listA      string
	// initial and claimed are the statuses of the campaign's recipients
	// as added and once claimed.
	initial, claimed string
}

// lists are the fixture's cursor lists.
func (f cursorFixture) lists() []cursorList {
	recipients := "/api/campaigns/campaigns/" + f.campaignID + "/recipients"
	return []cursorList{
		{"campaigns", "/api/campaigns/campaigns", "campaigns", "campaignId", "nextCursor", "pagination.total"},
		{"personas", "/api/campaigns/icp-personas", "data.items", "icpId", "data.nextCursor", "data.pagination.total"},
		{"events", "/api/campaigns/events", "data.items", "id", "data.nextCursor", "data.pagination.total"},
		{"contacts", "/api/campaigns/contacts", "items", "contactId", "nextCursor", "total"},
		{"list contacts", "/api/campaigns/contact-lists/" + f.listA + "/contacts", "items", "contactId", "nextCursor", "total"},
		{"recipients", recipients, "recipients", "recipientId", "nextCursor", "pagination.total"},
		{"guide recipients", "/api/campaigns/" + f.campaignID + "/recipients", "recipients", "recipientId", "nextCursor", "pagination.total"},
	}
}

// newCursorFixture seeds an organization: 9 campaigns (one with 17
// recipients, 5 of them claimed, last names in no order), 7 personas, 7
// events, and 23 contacts in two lists (some in both).
func newCursorFixture(t *testing.T, s *dynamo.Store, name string) cursorFixture {
	t.Helper()
	orgID, key := testenv.Org(t, s, name, 1000)
	api := testenv.NewAPI(t, s, key)
	f := cursorFixture{api: api, store: s, orgID: orgID}
	f.campaignID = createCampaign(t, api, 1)
	for i := range 8 {
		postCampaign(t, api, map[string]any{"name": fmt.Sprintf("C%d", i), "campaignData": map[string]any{
			"giftIds": []string{"gift-wireless-charger"}}})
	}
	for i := range 17 {
		body := map[string]any{"contactDetails": map[string]any{"email": fmt.Sprintf("r%02d@example.com", i),
			"firstName": fmt.Sprintf("R%02d", i), "lastName": []string{"Zed", "Abe", "Moe", "abe", "Lu"}[i%5]}}
		res := api.Do("POST", addPath(f.campaignID), body)
		if res.Status != http.StatusOK {
			t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
		}
		if i%3 == 1 {
			f.claimed = string(testenv.Claim(t, s, orgID, f.campaignID, res.Map(t)["recipientId"].(string)).Status)
		}
	}
	for _, r := range listRecipients(t, api, f.campaignID, "?limit=100").Recipients {
		if string(r.Status) != f.claimed {
			f.initial = string(r.Status)
		}
	}
	for i := range 7 {
		createPersona(t, api, map[string]any{"name": fmt.Sprintf("P%d", i), "job_titles": []string{"CTO"}})
		body := newEventBody()
		body["name"] = fmt.Sprintf("E%d", i)
		createEvent(t, api, body)
	}
	f.listA = createList(t, api, "A")
	listB := createList(t, api, "B")
	importContacts(t, api, f.listA, people(0, 12)...)
	importContacts(t, api, listB, people(8, 15)...) // 8..11 in both lists
	return f
}

// TestCursorWalksEqualPageWalks: on every list with a cursor, walking by
// nextCursor from the first page to the end finds exactly the items the
// walk by page number finds, in the same order, each once, with the same
// total on every page, for several limits and with the filters and sorts
// that keep a key order.
func TestCursorWalksEqualPageWalks(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	f := newCursorFixture(t, s, "acme")
	asc := url.Values{"sortOrder": {"asc"}}
	for _, l := range f.lists() {
		queries := []url.Values{{}}
		switch l.name {
		case "campaigns", "personas", "events":
			queries = append(queries, asc)
		case "recipients":
			queries = append(queries, asc, url.Values{"status": {f.claimed}}, url.Values{"status": {f.initial + "," + f.claimed}, "sortOrder": {"asc"}},
				url.Values{"sortBy": {"status"}}, url.Values{"groupBy": {"true"}, "sortOrder": {"asc"}},
				url.Values{"sortBy": {"lastName"}}, url.Values{"sortBy": {"lastName"}, "sortOrder": {"asc"}})
		case "guide recipients":
			queries = append(queries, url.Values{"status": {f.claimed}})
		}
		for _, q := range queries {
			for _, limit := range []int{1, 3, 5, 100} {
				t.Run(fmt.Sprintf("%s?%s&limit=%d", l.name, q.Encode(), limit), func(t *testing.T) {
					want, total := walkByNumber(t, f.api, l, q, limit)
					if len(want) == 0 || int(total) != len(want) {
						t.Fatalf("the walk by number found %d items of %v", len(want), total)
					}
					got := walkByCursor(t, f.api, l, q, limit, nil)
					if !slices.Equal(got, want) {
						t.Errorf("by cursor %v\nby number %v", got, want)
					}
				})
			}
		}
	}
}

// TestCursorWalkWhileContactsAreAdded: contacts imported between two pages
// of a walk by cursor neither shift nor repeat the contacts it had yet to
// reach: every contact there was at the start comes exactly once, in the
// order the list had then.
func TestCursorWalkWhileContactsAreAdded(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	f := newCursorFixture(t, s, "acme")
	for _, l := range f.lists()[3:5] {
		t.Run(l.name, func(t *testing.T) {
			before, _ := walkByNumber(t, f.api, l, url.Values{}, 100)
			added := 0
			got := walkByCursor(t, f.api, l, url.Values{}, 4, func(int) {
				importContacts(t, f.api, f.listA, people(100+added, 2)...)
				added += 2
			})
			var seen []string
			for _, id := range got {
				if slices.Contains(seen, id) {
					t.Fatalf("%s came twice in the walk %v", id, got)
				}
				seen = append(seen, id)
			}
			kept := slices.DeleteFunc(slices.Clone(got), func(id string) bool { return !slices.Contains(before, id) })
			if !slices.Equal(kept, before) {
				t.Errorf("the walk's contacts that were there at its start %v; want %v", kept, before)
			}
		})
	}
}

// TestAudienceContactsCursorWalk: an audience's contacts in the default
// order (the contacts' createdAt, ties by contactId) walked by nextCursor
// are those of the walk by number, in order, both ways and with several
// limits; a search or another sort has no cursor; another audience's
// cursor is refused.
func TestAudienceContactsCursorWalk(t *testing.T) {
	t.Parallel()
	api, _, _, audienceID := membersFixture(t, "acme")
	l := cursorList{"audience contacts", "/api/campaigns/audience-lists/" + audienceID + "/contacts", "data.items", "contactId",
		"data.nextCursor", "data.pagination.total"}
	for _, q := range []url.Values{{}, {"sortOrder": {"asc"}}} {
		for _, limit := range []int{1, 5, 13, 100} {
			want, _ := walkByNumber(t, api, l, q, limit)
			if got := walkByCursor(t, api, l, q, limit, nil); len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("?%s&limit=%d: by cursor %v\nby number %v", q.Encode(), limit, got, want)
			}
		}
	}
	next := getPage(t, api, l, url.Values{"limit": {"5"}}).next
	if p := getPage(t, api, l, url.Values{"limit": {"5"}, "sortBy": {"updatedAt"}}); p.next != "" {
		t.Errorf("the updatedAt order answered nextCursor %q; it has none", p.next)
	}
	assertCursorRefused(t, api, l.path, url.Values{"cursor": {next}, "search": {"ann"}})
	assertCursorRefused(t, api, l.path, url.Values{"cursor": {next}, "sortOrder": {"asc"}})
	assertCursorRefused(t, api, "/api/campaigns/audience-lists/01JH8Z4Q1V6W3K2M9T5R7Y0AUD/contacts", url.Values{"cursor": {next}})
}
