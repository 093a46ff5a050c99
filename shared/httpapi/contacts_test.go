package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

func TestListContacts(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	list := createList(t, api, "All")
	// 250 contacts in three imports; person<k> is created k-th, so newest
	// first means person249 … person0.
	for from := 0; from < 250; from += 100 {
		importContacts(t, api, list, people(from, min(100, 250-from))...)
	}
	wantPage := func(page, limit int) []string {
		var out []string
		for i := (page - 1) * limit; i < min(page*limit, 250); i++ {
			out = append(out, fmt.Sprintf("person%d@example.com", 249-i))
		}
		return out
	}
	mails := func(p contactsPage) []string {
		var out []string
		for _, c := range p.Items {
			out = append(out, c.MailID)
		}
		return out
	}

	t.Run("defaults", func(t *testing.T) {
		p := listContacts(t, api, "")
		if p.Page != 1 || p.Limit != 12 || p.Total != 250 || p.TotalPages != 21 {
			t.Fatalf("page %d limit %d total %d pages %d; want 1, 12, 250, 21", p.Page, p.Limit, p.Total, p.TotalPages)
		}
		if got := mails(p); !slices.Equal(got, wantPage(1, 12)) {
			t.Errorf("items = %v, want newest first %v", got, wantPage(1, 12))
		}
		c := p.Items[0]
		if c.ContactID == "" || c.OrganizationID != "acme" || c.FirstName != "First249" || c.CompanyName != "Company0" ||
			!slices.Equal(c.ListIDs, []string{list}) || len(c.Emails) != 1 || len(c.Sources) != 1 || c.Usage.CampaignIDs == nil {
			t.Errorf("first item is not the full record: %+v", c)
		}
	})
	for _, tt := range []struct{ page, limit int }{{2, 100}, {3, 100}, {4, 100}, {5, 7}, {36, 7}} {
		t.Run(fmt.Sprintf("page %d limit %d", tt.page, tt.limit), func(t *testing.T) {
			p := listContacts(t, api, fmt.Sprintf("page=%d&limit=%d", tt.page, tt.limit))
			if got, want := mails(p), wantPage(tt.page, tt.limit); !slices.Equal(got, want) {
				t.Errorf("got %d items %v; want %d %v", len(got), got, len(want), want)
			}
			if p.Total != 250 || p.Items == nil {
				t.Errorf("total %d items nil %v; want 250 and []", p.Total, p.Items == nil)
			}
		})
	}
	t.Run("search matches name, email and company case-insensitively", func(t *testing.T) {
		// What person<k> can be found by: names, email, company.
		text := func(k int) string {
			return strings.ToLower(fmt.Sprintf("First%d Person person%d@example.com Company%d", k, k, k%3))
		}
		for _, search := range []string{"first12", "FIRST249", "person7@EXAMPLE", "Company2", "company2 first5", "example.com", "nobody"} {
			want := 0
			for k := range 250 {
				all := true
				for _, term := range strings.Fields(strings.ToLower(search)) {
					all = all && strings.Contains(text(k), term)
				}
				if all {
					want++
				}
			}
			p := listContacts(t, api, "search="+url.QueryEscape(search)+"&limit=100")
			if p.Total != want || len(p.Items) != min(want, 100) {
				t.Errorf("search %q: total %d, %d items; want %d", search, p.Total, len(p.Items), want)
			}
		}
	})
	t.Run("search pages newest first", func(t *testing.T) {
		p := listContacts(t, api, "search=company0&page=2&limit=10")
		var want []string
		for k := 249; k >= 0; k-- {
			if k%3 == 0 {
				want = append(want, fmt.Sprintf("person%d@example.com", k))
			}
		}
		if got := mails(p); p.Total != len(want) || !slices.Equal(got, want[10:20]) {
			t.Errorf("total %d items %v; want %d, %v", p.Total, got, len(want), want[10:20])
		}
	})
	for _, tt := range []struct{ name, query, field string }{
		{"page zero", "page=0", "page"},
		{"limit above 100", "limit=101", "limit"},
		{"limit zero", "limit=0", "limit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("GET", "/api/campaigns/contacts?"+tt.query, nil)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	t.Run("another org sees none of them", func(t *testing.T) {
		_, key := testenv.Org(t, s, "globex", 0)
		other := api.WithKey(key)
		if p := listContacts(t, other, "search=first"); p.Total != 0 || len(p.Items) != 0 {
			t.Errorf("other org: total %d items %d", p.Total, len(p.Items))
		}
		if p := listContacts(t, other, "page=2&limit=100"); p.Total != 0 || len(p.Items) != 0 {
			t.Errorf("other org page 2: total %d items %d", p.Total, len(p.Items))
		}
		id := listContacts(t, api, "limit=1").Items[0].ContactID
		assertError(t, other.Do("GET", "/api/campaigns/contacts/"+id, nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, other.Do("PATCH", "/api/campaigns/contacts/"+id, map[string]any{"jobTitle": "x"}), http.StatusNotFound, "NOT_FOUND")
		assertError(t, other.Do("DELETE", "/api/campaigns/contacts/"+id, nil), http.StatusNotFound, "NOT_FOUND")
	})
}
