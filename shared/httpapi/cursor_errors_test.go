package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// assertCursorRefused checks that GET path?query is a 400 VALIDATION_FAILED
// naming the cursor parameter.
func assertCursorRefused(t *testing.T, api *testenv.API, path string, query url.Values) {
	t.Helper()
	res := api.Do("GET", path+"?"+query.Encode(), nil)
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	if d, _ := res.Map(t)["details"].(map[string]any); d["cursor"] == nil {
		t.Errorf("%s?%s: details %v; want the cursor named", path, query.Encode(), d)
	}
}

// TestCursorsRefusedWhereTheyDoNotBelong: a malformed or altered cursor, a
// cursor of another list, of other filters or sort, of another
// organization, one sent with a page other than 1, and one sent to a list
// as asked whose order follows no key are each a 400 in the error shape,
// never a page from somewhere else.
func TestCursorsRefusedWhereTheyDoNotBelong(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	f := newCursorFixture(t, s, "acme")
	_, otherKey := testenv.Org(t, s, "globex", 10)
	other := testenv.NewAPI(t, s, otherKey)
	next := map[string]string{}
	for _, l := range f.lists() {
		next[l.name] = getPage(t, f.api, l, url.Values{"limit": {"2"}}).next
		if next[l.name] == "" {
			t.Fatalf("%s: no nextCursor on a first page of 2", l.name)
		}
	}
	byName := func(name string) cursorList {
		i := slices.IndexFunc(f.lists(), func(l cursorList) bool { return l.name == name })
		return f.lists()[i]
	}
	altered := []byte(next["contacts"])
	altered[len(altered)/2] ^= 1
	cases := []struct {
		name, list string
		query      url.Values
		api        *testenv.API
	}{
		{"malformed", "campaigns", url.Values{"cursor": {"not-a-cursor"}}, f.api},
		{"altered", "contacts", url.Values{"cursor": {string(altered)}}, f.api},
		{"another list's", "events", url.Values{"cursor": {next["personas"]}}, f.api},
		{"another order's", "personas", url.Values{"cursor": {next["personas"]}, "sortOrder": {"asc"}}, f.api},
		{"another filter's", "recipients", url.Values{"cursor": {next["recipients"]}, "status": {f.claimed}}, f.api},
		{"another list's contacts", "list contacts", url.Values{"cursor": {next["contacts"]}}, f.api},
		{"with page 2", "campaigns", url.Values{"cursor": {next["campaigns"]}, "page": {"2"}}, f.api},
		{"with a search", "contacts", url.Values{"cursor": {next["contacts"]}, "search": {"first1"}}, f.api},
		{"with an in-memory sort", "recipients", url.Values{"cursor": {next["recipients"]}, "sortBy": {"email"}}, f.api},
		{"with a filter kept in memory", "campaigns", url.Values{"cursor": {next["campaigns"]}, "status": {"draft"}}, f.api},
		{"another organization's contacts", "contacts", url.Values{"cursor": {next["contacts"]}}, other},
		{"another organization's campaigns", "campaigns", url.Values{"cursor": {next["campaigns"]}}, other},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertCursorRefused(t, tc.api, byName(tc.list).path, tc.query)
		})
	}
	t.Run("a forged cursor reaches only the caller's organization", func(t *testing.T) {
		// Someone who knows the encoding binds another organization's
		// position to their own: the page still comes from their own
		// contacts, never the other's.
		importContacts(t, other, createList(t, other, "G"), people(500, 3)...)
		l := byName("contacts")
		at, ok := gifting.ResumeAt(next["contacts"], gifting.Binding(f.orgID, "contacts", ""))
		if !ok {
			t.Fatal("the fixture's cursor does not read back under its binding")
		}
		forged := gifting.CursorAt(at, gifting.Binding("globex", "contacts", ""))
		mine, _ := walkByNumber(t, f.api, l, url.Values{}, 100)
		p := getPage(t, other, l, url.Values{"cursor": {forged}, "limit": {"100"}})
		for _, id := range p.ids {
			if slices.Contains(mine, id) {
				t.Fatalf("a forged cursor showed acme's contact %s to globex", id)
			}
		}
	})
}

// TestCursorPagesReadOnlyThePage: in each family of lists (creation order
// through the counter and the table, contacts through the Slim index, a
// list's contacts through its two parts, recipients through an index), a
// page read by cursor deep in the list costs what the first page costs:
// the same requests, none of them a Query asking more than the page and
// one item, whatever came before it.
func TestCursorPagesReadOnlyThePage(t *testing.T) {
	t.Parallel()
	a, orgID := newMeteredAPI(t, 100)
	f := cursorFixture{api: a.API, store: a.store, orgID: orgID}
	f.campaignID = createCampaign(t, a.API, 1)
	for i := range 30 {
		if res := a.Do("POST", addPath(f.campaignID), recipientBody(fmt.Sprintf("r%02d@example.com", i), "R")); res.Status != http.StatusOK {
			t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
		}
		postCampaign(t, a.API, map[string]any{"name": fmt.Sprintf("C%d", i), "campaignData": map[string]any{
			"giftIds": []string{"gift-wireless-charger"}}})
	}
	listA := createList(t, a.API, "A")
	importContacts(t, a.API, listA, people(0, 30)...)
	// B's 10th page of 3 is among its members whose first list is A
	// (20..29), its second part: the step from one part to the next
	// costs one Query more, once.
	f.listA = createList(t, a.API, "B")
	importContacts(t, a.API, f.listA, people(20, 30)...)
	const limit = 3
	for _, l := range f.lists() {
		if l.name == "personas" || l.name == "events" || l.name == "guide recipients" {
			continue // the same families as campaigns and recipients
		}
		t.Run(l.name, func(t *testing.T) {
			q := url.Values{"limit": {fmt.Sprint(limit)}}
			first, _ := a.call(t, http.StatusOK, "GET", l.path+"?"+q.Encode(), nil)
			p := getPage(t, a.API, l, q)
			for range 8 {
				p = getPage(t, a.API, l, withParams(q, "cursor", p.next))
			}
			u := &meter.Usage{Record: true}
			a.usage.Store(u)
			a.Do("GET", l.path+"?"+withParams(q, "cursor", p.next).Encode(), nil)
			a.usage.Store(&meter.Usage{})
			deep := a.costOf(t, u.Calls())
			if deep.requests != first.requests {
				t.Errorf("the 10th page by cursor asks %s; the first asks %s", deep.requests, first.requests)
			}
			for _, c := range u.Calls() {
				if in, ok := c.Input.(*dynamodb.QueryInput); ok && (in.Limit == nil || *in.Limit > limit+1) {
					t.Errorf("a cursor page's Query asks for %v items; want at most the page and one", in.Limit)
				}
			}
		})
	}
}
