package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

// searchPeople are contacts whose words share prefixes and tokens (Jo,
// John, Johnson, Joan), with companies of several words and emails on a
// few domains, so word-prefix searches have several matches and a token
// holds more than they.
func searchPeople() []map[string]any {
	first := []string{"John", "Joan", "Johanna", "Mary", "Ada", "Jo"}
	last := []string{"Johnson", "Smith", "Lovelace", "Ng", "Marsh"}
	company := []string{"Acme Corp", "Initech", "Acme Labs", "", "Globex Johnson"}
	domain := []string{"acme.com", "initech.io", "example.org"}
	out := make([]map[string]any, 30)
	for k := range out {
		f, l := first[k%len(first)], last[(k/2)%len(last)]
		out[k] = map[string]any{
			"mailId":    fmt.Sprintf("%s.%s%d@%s", strings.ToLower(f), strings.ToLower(l), k, domain[k%len(domain)]),
			"firstName": f, "lastName": l, "companyName": company[(k/3)%len(company)],
		}
		if k%4 == 0 {
			out[k]["linkedinUrl"] = fmt.Sprintf("https://www.linkedin.com/in/%s-%d", strings.ToLower(f), k)
		}
	}
	return out
}

// oldScan is what the search before token entries answered on the same
// contacts: those (of all, in the contacts page's order) whose search text
// contains every word of the search, a substring match, and, within a
// list, the list's members among them.
func oldScan(all []gifting.Contact, search, listID string) []string {
	var out []string
	for _, c := range all {
		text := strings.ToLower(strings.Join([]string{c.FirstName, c.LastName, c.MailID, c.CompanyName}, " "))
		keep := listID == "" || slices.Contains(c.ListIDs, listID)
		for _, term := range strings.Fields(strings.ToLower(search)) {
			keep = keep && strings.Contains(text, term)
		}
		if keep {
			out = append(out, c.ContactID)
		}
	}
	return out
}

// TestContactSearch: GET /contacts?search= and a list's ?search= answer
// from the token entries with the items, order and totals the whole-index
// scan answered, wherever a word prefix and a substring agree; a term
// inside a word no longer matches (docs/decisions); and every write of a
// contact (rename, merge, removal from a list, delete) keeps its entries
// right.
func TestContactSearch(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	leads, vips := createList(t, api, "Leads"), createList(t, api, "VIPs")
	added := importContacts(t, api, leads, searchPeople()[:20]...)
	importContacts(t, api, vips, searchPeople()[20:]...)
	var some []string
	for i, it := range added.Data.Items {
		if i%3 == 0 {
			some = append(some, it.ContactID)
		}
	}
	if status, out := bulkAdd(t, api, vips, map[string]any{"contactIds": some}); status != http.StatusOK {
		t.Fatalf("add by id: %d %+v", status, out)
	}
	all := listContacts(t, api, "limit=100").Items
	if len(all) != 30 {
		t.Fatalf("%d contacts, want 30", len(all))
	}

	search := func(path, q string) ([]string, int) {
		t.Helper()
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		res := api.Do("GET", path+sep+"search="+url.QueryEscape(q), nil)
		if res.Status != http.StatusOK {
			t.Fatalf("search %q: %d %s", q, res.Status, res.Body)
		}
		var p contactsPage
		res.JSON(t, &p)
		ids := make([]string, len(p.Items))
		for i, c := range p.Items {
			ids[i] = c.ContactID
		}
		return ids, p.Total
	}
	contacts, members := "/api/campaigns/contacts", "/api/campaigns/contact-lists/"+vips+"/contacts"
	// Terms that start words wherever they occur: the scan and the
	// entries must agree, item for item, in order, with the same totals.
	for _, q := range []string{"john", "JOHNSON", "jo", "acme", "acme corp", "smith acme", "initech.io", "mary.marsh",
		"ada lovelace", "glob", "ng", "nobody", "mar"} {
		for _, where := range []struct{ path, list string }{{contacts + "?limit=100", ""}, {members + "?limit=100", vips}} {
			got, total := search(where.path, q)
			want := oldScan(all, q, where.list)
			if !slices.Equal(got, want) || total != len(want) {
				t.Errorf("%s search %q: %d items (total %d), want the scan's %d: %v vs %v", where.path, q, len(got), total, len(want), got, want)
			}
		}
	}
	// Pages of a search are windows of the same order, each with the
	// total.
	want := oldScan(all, "jo", "")
	for page := 1; page <= 3; page++ {
		got, total := search(fmt.Sprintf("%s?limit=4&page=%d", contacts, page), "jo")
		lo, hi := min((page-1)*4, len(want)), min(page*4, len(want))
		if !slices.Equal(got, want[lo:hi]) || total != len(want) {
			t.Errorf("page %d of jo: %v (total %d), want %v (%d)", page, got, total, want[lo:hi], len(want))
		}
	}
	// Word prefix, not substring: "ohnson" is inside Johnson.
	if got, total := search(contacts, "ohnson"); len(got) != 0 || total != 0 {
		t.Errorf("a term inside a word matched %d contacts", total)
	}

	target := all[0].ContactID
	t.Run("after a rename", func(t *testing.T) {
		old := all[0].FirstName + " " + all[0].LastName + " " + all[0].CompanyName
		if got, _ := search(contacts+"?limit=100", old); !slices.Contains(got, target) {
			t.Fatalf("before the rename, %q does not find %s", old, target)
		}
		res := api.Do("PATCH", "/api/campaigns/contacts/"+target, map[string]any{"firstName": "Zebulon", "lastName": "Quixote",
			"companyName": "Quasar Ltd", "mailId": "zq@quasar.test"})
		if res.Status != http.StatusOK {
			t.Fatalf("rename: %d %s", res.Status, res.Body)
		}
		if got, _ := search(contacts, "zebu quas"); !slices.Equal(got, []string{target}) {
			t.Errorf("new name: %v, want [%s]", got, target)
		}
		if got, _ := search(contacts, "quasar.test"); !slices.Equal(got, []string{target}) {
			t.Errorf("new email's domain: %v, want [%s]", got, target)
		}
		if got, _ := search(contacts+"?limit=100", old); slices.Contains(got, target) {
			t.Errorf("the old name still finds %s", target)
		}
	})
	t.Run("after a merge", func(t *testing.T) {
		// A contact without a company gets one from a later import.
		var bare gifting.Contact
		for _, c := range all {
			if c.CompanyName == "" && c.ContactID != target {
				bare = c
				break
			}
		}
		importContacts(t, api, leads, map[string]any{"mailId": bare.MailID, "companyName": "Umbrella Works"})
		if got, _ := search(contacts, "umbrel"); !slices.Equal(got, []string{bare.ContactID}) {
			t.Errorf("merged company: %v, want [%s]", got, bare.ContactID)
		}
	})
	t.Run("after removal from a list", func(t *testing.T) {
		res := api.Do("DELETE", "/api/campaigns/contact-lists/"+vips+"/contacts/"+some[0], nil)
		if res.Status != http.StatusOK {
			t.Fatalf("remove: %d %s", res.Status, res.Body)
		}
		c := getContact(t, api, some[0])
		if got, _ := search(members+"?limit=100", c.LastName); slices.Contains(got, some[0]) {
			t.Errorf("a removed member is still found in the list")
		}
		if got, _ := search(contacts+"?limit=100", c.LastName); !slices.Contains(got, some[0]) {
			t.Errorf("a contact removed from a list is no longer found at all")
		}
	})
	t.Run("after a delete", func(t *testing.T) {
		gone := all[1]
		if res := api.Do("DELETE", "/api/campaigns/contacts/"+gone.ContactID, nil); res.Status != http.StatusOK {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		got, total := search(contacts+"?limit=100", gone.FirstName)
		if slices.Contains(got, gone.ContactID) || total != len(got) {
			t.Errorf("deleted contact found (%v, total %d)", got, total)
		}
	})
}
