package httpapi_test

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

func TestPersonas(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, keyA := testenv.Org(t, s, "acme", 0)
	_, keyB := testenv.Org(t, s, "globex", 0)
	a := testenv.NewAPI(t, s, keyA)

	body := map[string]any{
		"persona": map[string]any{
			"name": " Revenue leaders ", "description": "Sales leadership",
			"job_titles": []string{"VP Sales", "vp sales", "Chief Revenue Officer"}, "departments": []string{"Sales"},
			"seniority_levels": []string{"VP", "C-Level"}, "contact_locations": []map[string]any{{"country": "US", "region": "CA"}},
		},
		"company":  map[string]any{"industry": "Software", "sizes": []any{"201-500"}, "public": false},
		"status":   "active",
		"metadata": map[string]any{"tags": []string{"enterprise"}, "priority": "high"},
	}
	res := a.Do("POST", "/api/campaigns/icp-personas", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	created := res.Map(t)["icpPersona"].(map[string]any)
	id, _ := created["icpId"].(string)

	t.Run("get returns every field", func(t *testing.T) {
		res := a.Do("GET", "/api/campaigns/icp-personas/"+id, nil)
		var got struct {
			ICPPersona icpPersona `json:"icpPersona"`
		}
		res.JSON(t, &got)
		p := got.ICPPersona
		if res.Status != http.StatusOK || p.ICPID != id || p.OrganizationID != "acme" || p.CreatedBy != "user-acme" ||
			p.Persona.Name != "Revenue leaders" || !slices.Equal(p.Persona.JobTitles, []string{"VP Sales", "Chief Revenue Officer"}) ||
			!slices.Equal(p.Persona.SeniorityLevels, []string{"VP", "C-Level"}) || len(p.Persona.ContactLocations) != 1 ||
			p.Company["industry"] != "Software" || p.Status != "active" || p.Metadata.Priority != "high" ||
			!slices.Equal(p.Metadata.Tags, []string{"enterprise"}) || p.CreatedAt.IsZero() || p.UpdatedAt.IsZero() {
			t.Fatalf("get persona: %d %s", res.Status, res.Body)
		}
		m := res.Map(t)["icpPersona"].(map[string]any)
		if !maps.EqualFunc(m, created, func(x, y any) bool { return fmt.Sprint(x) == fmt.Sprint(y) }) {
			t.Errorf("GET %v differs from the create response %v", m, created)
		}
	})
	t.Run("defaults", func(t *testing.T) {
		res := a.Do("POST", "/api/campaigns/icp-personas", map[string]any{"persona": map[string]any{"name": "Anyone"}})
		p := res.Map(t)["icpPersona"].(map[string]any)
		persona := p["persona"].(map[string]any)
		if res.Status != http.StatusCreated || p["status"] != "active" || p["metadata"].(map[string]any)["priority"] != "medium" ||
			fmt.Sprint(persona["job_titles"]) != "[]" || fmt.Sprint(p["company"]) != "map[]" {
			t.Errorf("defaults: %d %s", res.Status, res.Body)
		}
	})
	t.Run("another organization gets 404", func(t *testing.T) {
		assertError(t, a.WithKey(keyB).Do("GET", "/api/campaigns/icp-personas/"+id, nil), http.StatusNotFound, "NOT_FOUND")
	})
	for _, tt := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"missing persona name", map[string]any{"persona": map[string]any{"job_titles": []string{"CEO"}}}, "persona.name"},
		{"unknown seniority", map[string]any{"persona": map[string]any{"name": "x", "seniority_levels": []string{"boss"}}}, "persona.seniority_levels"},
		{"empty location", map[string]any{"persona": map[string]any{"name": "x", "contact_locations": []map[string]any{{"country": " "}}}}, "persona.contact_locations[0]"},
		{"titles not strings", map[string]any{"persona": map[string]any{"name": "x", "job_titles": []int{1}}}, "persona.job_titles"},
		{"company not an object", map[string]any{"persona": map[string]any{"name": "x"}, "company": "Acme"}, "company"},
		{"empty key in company", map[string]any{"persona": map[string]any{"name": "x"}, "company": map[string]any{"": 1}}, "company"},
		{"empty key deep in company", map[string]any{"persona": map[string]any{"name": "x"}, "company": map[string]any{"sizes": []any{map[string]any{"": "1-10"}}}}, "company"},
		{"unknown priority", map[string]any{"persona": map[string]any{"name": "x"}, "metadata": map[string]any{"priority": "urgent"}}, "metadata.priority"},
		{"unknown status", map[string]any{"persona": map[string]any{"name": "x"}, "status": "archived"}, "status"},
		{"server-owned field", map[string]any{"persona": map[string]any{"name": "x"}, "icpId": "mine"}, "icpId"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Do("POST", "/api/campaigns/icp-personas", tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
}

// matchingPeople are the contacts of TestAudienceMatching.
var matchingPeople = []person{
	{"alice@example.com", "VP of Sales", "US", "CA"},
	{"bob@example.com", "Senior Software Engineer", "US", "NY"},
	{"carol@example.com", "Chief Revenue Officer", "Canada", "Ontario"},
	{"dan@example.com", "Sales Development Representative", "US", "TX"},
	{"erin@example.com", "Head of Marketing", "UK", "London"},
	{"frank@example.com", "Director, Engineering", "Germany", "Bavaria"},
	{"gina@example.com", "", "US", "CA"},
	{"hal@example.com", "Vice President, Sales", "USA", "California"},
	{"ivy@example.com", "Marketing Intern", "United States", "New York"},
}

func TestAudienceMatching(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "acme", 0)
	a := testenv.NewAPI(t, s, keyA)
	seedContacts(t, s, orgA, matchingPeople)

	for _, tt := range []struct {
		name    string
		persona map[string]any
		want    []string
	}{
		{"job title, any case and spelling", map[string]any{"job_titles": []string{"vp sales"}}, []string{"alice", "hal"}},
		{"department and seniority", map[string]any{"departments": []string{"Sales"}, "seniority_levels": []string{"VP", "C-Level"}}, []string{"alice", "carol", "hal"}},
		{"country and region, codes or names", map[string]any{"contact_locations": []map[string]any{{"country": "United States", "region": "California"}}}, []string{"alice", "gina", "hal"}},
		{"kinds combine with AND", map[string]any{"job_titles": []string{"engineer"}, "contact_locations": []map[string]any{{"country": "US"}}}, []string{"bob"}},
		{"values combine with OR", map[string]any{"contact_locations": []map[string]any{{"country": "UK"}, {"country": "DE"}}}, []string{"erin", "frank"}},
		{"department inferred from title", map[string]any{"departments": []string{"marketing"}}, []string{"erin", "ivy"}},
		{"entry level", map[string]any{"seniority_levels": []string{"Entry Level"}}, []string{"ivy"}},
		{"matching nothing", map[string]any{"job_titles": []string{"Astronaut"}}, nil},
		{"no criteria matches nothing", map[string]any{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.persona["name"] = tt.name
			icp := createPersona(t, a, tt.persona)
			aud := buildAudience(t, a, map[string]any{"name": tt.name, "icpId": icp, "creditsPerContact": 40})
			var want []string
			for _, w := range tt.want {
				want = append(want, w+"@example.com")
			}
			if got := audienceEmails(t, a, aud.AudienceID); !slices.Equal(got, want) {
				t.Errorf("members = %v, want %v", got, want)
			}
			n := int64(len(want))
			if aud.Status != string(audience.Ready) || aud.TotalMatch != n || aud.CreditRequired != 40*n ||
				aud.Metadata.CreditsPerContact != 40 || aud.Metadata.PricedBy != audience.PricedByInput || aud.Metadata.BuildFinishedAt == nil {
				t.Errorf("audience = %+v; want ready with %d matches costing %d", aud, n, 40*n)
			}
			if scanned := aud.Metadata.ContactsScanned; len(tt.persona) > 1 && scanned != int64(len(matchingPeople)) {
				t.Errorf("contactsScanned = %d, want %d", scanned, len(matchingPeople))
			}
		})
	}
	t.Run("members say what they matched on", func(t *testing.T) {
		icp := createPersona(t, a, map[string]any{"name": "m", "departments": []string{"sales"}, "seniority_levels": []string{"c-suite"},
			"contact_locations": []map[string]any{{"country": "CA"}, {"country": "Canada", "region": "ON"}}})
		aud := buildAudience(t, a, map[string]any{"name": "m", "icpId": icp})
		var body audienceContactsBody
		a.Do("GET", "/api/campaigns/audience-lists/"+aud.AudienceID+"/contacts", nil).JSON(t, &body)
		if len(body.Data.Items) != 1 {
			t.Fatalf("items = %+v, want carol only", body.Data.Items)
		}
		m := body.Data.Items[0]
		want := matchedOn{Department: "sales", Seniority: "c-suite", Location: "CA"}
		if m.MailID != "carol@example.com" || m.MatchedOn != want || m.Seniority != "c_suite" || !slices.Contains(m.Departments, "sales") ||
			m.Country != "Canada" || m.State != "Ontario" || m.City != "Town" || m.JobTitle != "Chief Revenue Officer" || m.FirstName != "Name02" {
			t.Errorf("member = %+v", m)
		}
	})
}

func TestAudiencePricing(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "acme", 0)
	a := testenv.NewAPI(t, s, keyA)
	seedContacts(t, s, orgA, matchingPeople)
	icp := createPersona(t, a, map[string]any{"name": "sales", "departments": []string{"sales"}})
	gifts, _, err := catalog.NewApp(s).ListGifts(context.Background(), orgA, catalog.GiftFilter{Status: catalog.GiftAvailable}, gifting.PageRequest{Page: 1, Limit: 1000})
	if err != nil || len(gifts) < 2 {
		t.Fatalf("catalog gifts: %v, %d", err, len(gifts))
	}
	cheapest, dearest := gifts[0], gifts[0]
	for _, g := range gifts {
		if g.Price < cheapest.Price {
			cheapest = g
		}
		if g.Price > dearest.Price {
			dearest = g
		}
	}
	for _, tt := range []struct {
		name     string
		extra    map[string]any
		price    int64
		pricedBy string
		giftID   string
	}{
		{"default is the cheapest available gift", nil, int64(math.Ceil(cheapest.Price)), audience.PricedByGift, cheapest.GiftID},
		{"by gift", map[string]any{"giftId": dearest.GiftID}, int64(math.Ceil(dearest.Price)), audience.PricedByGift, dearest.GiftID},
		{"stated", map[string]any{"creditsPerContact": 7}, 7, audience.PricedByInput, ""},
		{"stated zero", map[string]any{"creditsPerContact": 0}, 0, audience.PricedByInput, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"name": tt.name, "icpId": icp}
			maps.Copy(body, tt.extra)
			aud := buildAudience(t, a, body)
			m := aud.Metadata
			if aud.TotalMatch != 4 || m.CreditsPerContact != tt.price || m.PricedBy != tt.pricedBy || m.GiftID != tt.giftID ||
				aud.CreditRequired != 4*tt.price {
				t.Errorf("audience %+v; want 4 matches at %d (%s %s)", aud, tt.price, tt.pricedBy, tt.giftID)
			}
		})
	}
	for _, tt := range []struct {
		name   string
		body   map[string]any
		status int
		field  string
	}{
		{"missing name", map[string]any{"icpId": icp}, http.StatusBadRequest, "name"},
		{"missing icpId", map[string]any{"name": "x"}, http.StatusBadRequest, "icpId"},
		{"negative price", map[string]any{"name": "x", "icpId": icp, "creditsPerContact": -1}, http.StatusBadRequest, "creditsPerContact"},
		{"price and gift", map[string]any{"name": "x", "icpId": icp, "creditsPerContact": 1, "giftId": cheapest.GiftID}, http.StatusBadRequest, "giftId"},
		{"unknown gift", map[string]any{"name": "x", "icpId": icp, "giftId": "gift-nope"}, http.StatusNotFound, ""},
		{"unknown persona", map[string]any{"name": "x", "icpId": "nope"}, http.StatusNotFound, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Do("POST", "/api/campaigns/audience-lists", tt.body)
			if tt.status == http.StatusNotFound {
				assertError(t, res, tt.status, "NOT_FOUND")
				return
			}
			assertError(t, res, tt.status, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
}

func TestAudienceTenancy(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "acme", 0)
	_, keyB := testenv.Org(t, s, "globex", 0)
	a := testenv.NewAPI(t, s, keyA)
	b := a.WithKey(keyB)
	seedContacts(t, s, orgA, matchingPeople)
	persona := map[string]any{"name": "sales", "departments": []string{"sales"}}
	icp := createPersona(t, a, persona)
	aud := buildAudience(t, a, map[string]any{"name": "sales", "icpId": icp})
	base := "/api/campaigns/audience-lists/" + aud.AudienceID

	for _, tt := range []struct{ name, method, path string }{
		{"persona", "GET", "/api/campaigns/icp-personas/" + icp},
		{"audience", "GET", base},
		{"audience contacts", "GET", base + "/contacts"},
		{"contact list from audience", "POST", base + "/contact-list"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assertError(t, b.Do(tt.method, tt.path, nil), http.StatusNotFound, "NOT_FOUND")
		})
	}
	t.Run("audience from another organization's persona", func(t *testing.T) {
		assertError(t, b.Do("POST", "/api/campaigns/audience-lists", map[string]any{"name": "x", "icpId": icp}), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("a build sees only its organization's contacts", func(t *testing.T) {
		own := buildAudience(t, b, map[string]any{"name": "sales", "icpId": createPersona(t, b, persona)})
		if own.Status != string(audience.Ready) || own.TotalMatch != 0 {
			t.Errorf("globex's audience = %+v; want ready and empty", own)
		}
	})
}

// contactIDsOf returns the ids of the people with the given emails.
func contactIDsOf(ids map[string]string, emails ...string) []string {
	var out []string
	for _, e := range emails {
		out = append(out, ids[e])
	}
	return out
}

func TestAudienceContactsPages(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "acme", 0)
	a := testenv.NewAPI(t, s, keyA)
	var people []person
	for i := range 30 {
		people = append(people, person{fmt.Sprintf("eng%02d@example.com", i), fmt.Sprintf("Engineer %d", i), "US", "CA"})
	}
	for i := range 5 {
		people = append(people, person{fmt.Sprintf("acct%02d@example.com", i), "Accountant", "US", "CA"})
	}
	ids := seedContacts(t, s, orgA, people)
	// Touch three early contacts, so updatedAt order differs from
	// creation order.
	touched := contactIDsOf(ids, "eng03@example.com", "eng01@example.com", "eng02@example.com")
	for _, id := range touched {
		note := "touched"
		if _, err := contact.NewApp(s, nil).UpdateContact(context.Background(), orgA, id, contact.Patch{Notes: &note}); err != nil {
			t.Fatal(err)
		}
	}
	var engineers []string
	for i := range 30 {
		engineers = append(engineers, ids[fmt.Sprintf("eng%02d@example.com", i)])
	}
	slices.Sort(engineers)
	aud := buildAudience(t, a, map[string]any{"name": "eng", "icpId": createPersona(t, a, map[string]any{"name": "eng", "job_titles": []string{"engineer"}})})
	if aud.TotalMatch != 30 {
		t.Fatalf("totalMatch = %d, want 30", aud.TotalMatch)
	}
	base := "/api/campaigns/audience-lists/" + aud.AudienceID + "/contacts"
	// walk reads every page of query with limit 7 and returns the ids.
	walk := func(t *testing.T, query string) []string {
		t.Helper()
		var out []string
		for page := 1; ; page++ {
			var body audienceContactsBody
			res := a.Do("GET", fmt.Sprintf("%s?limit=7&page=%d&%s", base, page, query), nil)
			res.JSON(t, &body)
			p := body.Data.Pagination
			if res.Status != http.StatusOK || !body.Success || body.Message == "" || body.Data.Audience.AudienceID != aud.AudienceID {
				t.Fatalf("page %d: %d %s", page, res.Status, res.Body)
			}
			if len(p) != 4 || p["page"] != page || p["limit"] != 7 || p["totalPages"] != (p["total"]+6)/7 {
				t.Fatalf("page %d pagination = %v; want exactly page, limit, total, totalPages", page, p)
			}
			if len(body.Data.Items) == 0 {
				if page != p["totalPages"]+1 {
					t.Fatalf("page %d is empty but totalPages is %d", page, p["totalPages"])
				}
				return out
			}
			for _, m := range body.Data.Items {
				out = append(out, m.ContactID)
			}
		}
	}
	t.Run("contactId ascending", func(t *testing.T) {
		if got := walk(t, "sortBy=contactId&sortOrder=asc"); !slices.Equal(got, engineers) {
			t.Errorf("got %v\nwant %v", got, engineers)
		}
	})
	// newestFirst orders contact ids by their contacts' createdAt, newest
	// first, ties by contactId (ids are derived from the email: no order of
	// creation).
	newestFirst := func(t *testing.T, ids []string) []string {
		t.Helper()
		created := map[string]time.Time{}
		for _, id := range ids {
			c, err := contact.NewApp(s, nil).Contact(context.Background(), orgA, id)
			if err != nil {
				t.Fatal(err)
			}
			created[id] = c.CreatedAt
		}
		out := slices.Clone(ids)
		slices.SortFunc(out, func(x, y string) int {
			return cmp.Or(created[y].Compare(created[x]), strings.Compare(y, x))
		})
		return out
	}
	t.Run("createdAt descending is the default", func(t *testing.T) {
		want := newestFirst(t, engineers)
		if got := walk(t, ""); !slices.Equal(got, want) {
			t.Errorf("got %v\nwant %v", got, want)
		}
	})
	t.Run("updatedAt descending puts the touched first", func(t *testing.T) {
		got := walk(t, "sortBy=updatedAt")
		if len(got) != 30 || !slices.Equal(got[:3], []string{touched[2], touched[1], touched[0]}) {
			t.Errorf("first three = %v, want %v in reverse update order", got[:min(3, len(got))], touched)
		}
		if seen := slices.Compact(slices.Sorted(slices.Values(got))); len(seen) != 30 {
			t.Errorf("%d distinct members, want 30", len(seen))
		}
	})
	t.Run("search", func(t *testing.T) {
		got := walk(t, "search=NAME0")
		want := contactIDsOf(ids, "eng00@example.com", "eng01@example.com", "eng02@example.com", "eng03@example.com",
			"eng04@example.com", "eng05@example.com", "eng06@example.com", "eng07@example.com", "eng08@example.com", "eng09@example.com")
		want = newestFirst(t, want)
		if !slices.Equal(got, want) {
			t.Errorf("search name0: got %v\nwant %v", got, want)
		}
		if got := walk(t, "search=accountant"); len(got) != 0 {
			t.Errorf("search accountant found %d members of an engineer audience", len(got))
		}
	})
	for _, tt := range []struct{ name, query, field string }{
		{"page zero", "page=0", "page"},
		{"limit above 100", "limit=101", "limit"},
		{"limit zero", "limit=0", "limit"},
		{"unknown sortBy", "sortBy=name", "sortBy"},
		{"unknown sortOrder", "sortOrder=up", "sortOrder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Do("GET", base+"?"+tt.query, nil)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	t.Run("missing audience", func(t *testing.T) {
		assertError(t, a.Do("GET", "/api/campaigns/audience-lists/nope/contacts", nil), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("items are snapshots of the contacts", func(t *testing.T) {
		var body audienceContactsBody
		a.Do("GET", base+"?sortBy=contactId&sortOrder=asc&limit=1", nil).JSON(t, &body)
		c, err := contact.NewApp(s, nil).Contact(context.Background(), orgA, engineers[0])
		if err != nil {
			t.Fatal(err)
		}
		m := body.Data.Items[0]
		if m.ContactID != c.ContactID || m.MailID != c.MailID || !m.CreatedAt.Equal(c.CreatedAt) || m.JobTitle != c.JobTitle ||
			m.MatchedOn.JobTitle != "engineer" || m.MatchedAt.IsZero() || strings.TrimSpace(m.FirstName) == "" {
			t.Errorf("member %+v does not reflect contact %+v", m, c)
		}
	})
}
