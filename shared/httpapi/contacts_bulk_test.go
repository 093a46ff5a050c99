package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

func TestBulkAddReportsEveryItem(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	list := createList(t, api, "Leads")
	status, out := bulkAdd(t, api, list, map[string]any{"contacts": []any{
		map[string]any{"mailId": "Ada@Example.com", "firstName": "Ada"},
		map[string]any{"mailId": "not-an-email"},
		map[string]any{"email": "grace@example.com", "lastName": "Hopper"},
		map[string]any{"mailId": "ada@example.COM", "lastName": "Lovelace", "companyName": "Engines"},
		map[string]any{"firstName": "No email"},
		map[string]any{"mailId": "kay@example.com", "linkedinUrl": "linkedin/kay"},
		map[string]any{"mailId": "x@example.com", "email": "y@example.com"},
		map[string]any{"mailId": "z@example.com", "firstName": strings.Repeat("z", 201)},
	}})
	if status != http.StatusMultiStatus || out.Success || out.StatusCode != http.StatusMultiStatus {
		t.Fatalf("status %d success %v statusCode %d; want 207, false, 207", status, out.Success, out.StatusCode)
	}
	want := []struct{ status, mail, reason string }{
		{"created", "ada@example.com", ""},
		{"failed", "", "mailId is not a valid email address"},
		{"created", "grace@example.com", ""},
		{"merged", "ada@example.com", ""},
		{"failed", "", "mailId is required"},
		{"failed", "kay@example.com", "linkedinUrl must be an http(s) URL"},
		{"failed", "", "email differs from mailId"},
		{"failed", "z@example.com", "firstName must be at most 200"},
	}
	if len(out.Data.Items) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(out.Data.Items), len(want), out.Data.Items)
	}
	for i, w := range want {
		got := out.Data.Items[i]
		if got.Index != i || got.Status != w.status || got.MailID != w.mail || !strings.Contains(got.Reason, w.reason) {
			t.Errorf("result %d = %+v; want index %d status %s mailId %q reason containing %q", i, got, i, w.status, w.mail, w.reason)
		}
	}
	if out.Data.Items[0].ContactID != out.Data.Items[3].ContactID {
		t.Errorf("repeated email got two contacts: %s, %s", out.Data.Items[0].ContactID, out.Data.Items[3].ContactID)
	}
	if out.Data.Created != 2 || out.Data.Merged != 1 || out.Data.Failed != 5 || out.Data.Received != 8 {
		t.Errorf("totals created %d merged %d failed %d received %d; want 2, 1, 5, 8", out.Data.Created, out.Data.Merged, out.Data.Failed, out.Data.Received)
	}
	ada := getContact(t, api, out.Data.Items[0].ContactID)
	if ada.FirstName != "Ada" || ada.LastName != "Lovelace" || ada.CompanyName != "Engines" {
		t.Errorf("merged contact = %s %s at %s; want Ada Lovelace at Engines", ada.FirstName, ada.LastName, ada.CompanyName)
	}
	if p := listContacts(t, api, ""); p.Total != 2 {
		t.Errorf("contacts total = %d, want 2", p.Total)
	}
	if l := getList(t, api, list); l.ContactCount != 2 {
		t.Errorf("list count = %d, want 2", l.ContactCount)
	}
}

func TestBulkAddStatuses(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	list := createList(t, api, "Leads")

	t.Run("all good is 200", func(t *testing.T) {
		status, out := bulkAdd(t, api, list, map[string]any{"contacts": people(0, 3)})
		if status != http.StatusOK || !out.Success || out.Data.Created != 3 || out.Data.Failed != 0 {
			t.Fatalf("status %d, %+v; want 200 with 3 created", status, out)
		}
	})
	t.Run("all failed is 400 and writes nothing", func(t *testing.T) {
		status, out := bulkAdd(t, api, list, map[string]any{"contacts": []any{
			map[string]any{"mailId": "bad"}, map[string]any{"mailId": ""},
		}})
		if status != http.StatusBadRequest || out.Success || out.Code != "VALIDATION_FAILED" {
			t.Fatalf("status %d code %s; want 400 VALIDATION_FAILED", status, out.Code)
		}
		if out.Details["contacts[0]"] == "" || out.Details["contacts[1]"] == "" || len(out.Data.Items) != 2 {
			t.Errorf("details %v, results %d; want both items explained", out.Details, len(out.Data.Items))
		}
		if p := listContacts(t, api, ""); p.Total != 3 {
			t.Errorf("contacts total = %d, want 3", p.Total)
		}
	})
	for _, tt := range []struct {
		name, want string
		body       any
	}{
		{"more than 100 contacts", "at most 100", map[string]any{"contacts": people(100, 101)}},
		{"more than 100 ids", "at most 100", map[string]any{"contactIds": slices.Repeat([]string{"x"}, 101)}},
		{"both variants", "not both", map[string]any{"contacts": people(0, 1), "contactIds": []string{"x"}}},
		{"empty", "at least one", map[string]any{"contacts": []any{}}},
		{"no body fields", "at least one", map[string]any{}},
		{"wrong type in one contact", "firstName", map[string]any{"contacts": []any{map[string]any{"mailId": "a@b.co", "firstName": 5}}}},
		{"unknown field in one contact", "nickname", map[string]any{"contacts": []any{map[string]any{"mailId": "a@b.co", "nickname": "A"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("POST", "/api/campaigns/contact-lists/"+list+"/contacts", tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if !strings.Contains(string(res.Body), tt.want) {
				t.Errorf("body %s does not say %q", res.Body, tt.want)
			}
		})
	}
	t.Run("unknown list is 404", func(t *testing.T) {
		res := api.Do("POST", "/api/campaigns/contact-lists/01NOSUCHLIST/contacts", map[string]any{"contacts": people(0, 1)})
		assertError(t, res, http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("another org's list is 404 and untouched", func(t *testing.T) {
		_, key := testenv.Org(t, s, "globex", 0)
		other := api.WithKey(key)
		res := other.Do("POST", "/api/campaigns/contact-lists/"+list+"/contacts", map[string]any{"contacts": people(50, 1)})
		assertError(t, res, http.StatusNotFound, "NOT_FOUND")
		if l := getList(t, api, list); l.ContactCount != 3 {
			t.Errorf("list count = %d, want 3", l.ContactCount)
		}
		if p := listContacts(t, other, ""); p.Total != 0 {
			t.Errorf("other org has %d contacts, want 0", p.Total)
		}
	})
}

func TestBulkAddMergesIntoStoredContact(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	leads, vips := createList(t, api, "Leads"), createList(t, api, "VIPs")
	first := importContacts(t, api, leads, map[string]any{
		"mailId": "ada@example.com", "firstName": "Ada", "tags": []string{"vip", "Speaker", "vip"},
		"address": map[string]any{"street": "1 Main St", "city": "London", "state": "LDN", "zipCode": "N1", "country": "UK"},
	})
	id := first.Data.Items[0].ContactID
	second := importContacts(t, api, vips, map[string]any{
		"email": "ADA@example.com", "firstName": "Augusta", "lastName": "King", "tags": []string{"VIP", "founder"},
	})
	if got := second.Data.Items[0]; got.Status != "merged" || got.ContactID != id {
		t.Fatalf("second import = %+v; want merged into %s", got, id)
	}
	c := getContact(t, api, id)
	t.Run("empty fields filled, set ones kept", func(t *testing.T) {
		if c.FirstName != "Ada" || c.LastName != "King" || c.FullName != "Ada King" || c.MailID != "ada@example.com" {
			t.Errorf("name %s %s (%s) mail %s; want Ada King (Ada King) ada@example.com", c.FirstName, c.LastName, c.FullName, c.MailID)
		}
	})
	t.Run("tags united with stable colours", func(t *testing.T) {
		var names []string
		for _, tag := range c.Tags {
			names = append(names, tag.Name)
			if tag.Color != contact.TagColor(tag.Name) || !gifting.ValidHexColour(tag.Color) {
				t.Errorf("tag %s has colour %s", tag.Name, tag.Color)
			}
		}
		if !slices.Equal(names, []string{"vip", "Speaker", "founder"}) {
			t.Errorf("tags = %v, want [vip Speaker founder]", names)
		}
		if contact.TagColor("VIP") != contact.TagColor("vip") {
			t.Error("tag colour depends on case")
		}
	})
	t.Run("lists united and counted", func(t *testing.T) {
		if !slices.Equal(c.ListIDs, []string{leads, vips}) {
			t.Errorf("listIds = %v, want [%s %s]", c.ListIDs, leads, vips)
		}
		if a, b := getList(t, api, leads).ContactCount, getList(t, api, vips).ContactCount; a != 1 || b != 1 {
			t.Errorf("list counts %d, %d; want 1, 1", a, b)
		}
	})
	t.Run("a source per import", func(t *testing.T) {
		if len(c.Sources) != 2 || c.Sources[0].Type != "import" || c.Sources[1].AddedAt.IsZero() {
			t.Errorf("sources = %+v; want two import entries", c.Sources)
		}
	})
	t.Run("address stored and primary", func(t *testing.T) {
		want := gifting.Address{Line1: "1 Main St", City: "London", State: "LDN", Zip: "N1", Country: "UK"}
		if c.Address != want || len(c.Addresses) != 1 || !c.Addresses[0].IsPrimary || c.Addresses[0].Address != want {
			t.Errorf("address %+v entries %+v; want %+v as the primary entry", c.Address, c.Addresses, want)
		}
		if len(c.Emails) != 1 || !c.Emails[0].IsPrimary || c.Emails[0].Email != "ada@example.com" {
			t.Errorf("emails = %+v; want one primary entry", c.Emails)
		}
	})
	t.Run("one contact in total", func(t *testing.T) {
		if p := listContacts(t, api, ""); p.Total != 1 || len(p.Items) != 1 {
			t.Errorf("total %d, items %d; want 1, 1", p.Total, len(p.Items))
		}
	})
	t.Run("importing again into the same list keeps counts", func(t *testing.T) {
		again := importContacts(t, api, leads, map[string]any{"mailId": "ada@example.com"})
		if again.Data.Items[0].Status != "merged" || getList(t, api, leads).ContactCount != 1 {
			t.Errorf("re-import: %+v, count %d; want merged, 1", again.Data.Items[0], getList(t, api, leads).ContactCount)
		}
	})
}

func TestBulkAddContactIDs(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	leads, vips := createList(t, api, "Leads"), createList(t, api, "VIPs")
	in := importContacts(t, api, leads, people(0, 3)...)
	a, b, c := in.Data.Items[0].ContactID, in.Data.Items[1].ContactID, in.Data.Items[2].ContactID
	importContacts(t, api, vips, people(2, 1)...) // c is already in VIPs

	status, out := bulkAdd(t, api, vips, map[string]any{"contactIds": []string{a, "01UNKNOWN", c, a, b}})
	if status != http.StatusMultiStatus {
		t.Fatalf("status %d, want 207: %+v", status, out)
	}
	want := []string{"added", "failed", "unchanged", "unchanged", "added"}
	for i, w := range want {
		if got := out.Data.Items[i]; got.Status != w || got.Index != i {
			t.Errorf("item %d = %+v, want %s", i, got, w)
		}
	}
	if n := getList(t, api, vips).ContactCount; n != 3 {
		t.Errorf("VIPs count = %d, want 3", n)
	}
	if got := getContact(t, api, a).ListIDs; !slices.Equal(got, []string{leads, vips}) {
		t.Errorf("listIds of a = %v", got)
	}
	t.Run("another org's contact ids fail", func(t *testing.T) {
		_, key := testenv.Org(t, s, "globex", 0)
		other := api.WithKey(key)
		theirs := createList(t, other, "Theirs")
		status, out := bulkAdd(t, other, theirs, map[string]any{"contactIds": []string{a}})
		if status != http.StatusBadRequest || out.Data.Failed != 1 || getList(t, other, theirs).ContactCount != 0 {
			t.Errorf("status %d failed %d; want 400, 1, count 0", status, out.Data.Failed)
		}
	})
}

// TestConcurrentSameEmailImport imports the same 30 emails from many
// requests at once (more than one batch of inserts each): exactly one
// contact must come out per email, in every list, counted once.
func TestConcurrentSameEmailImport(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	leads, vips := createList(t, api, "Leads"), createList(t, api, "VIPs")
	const n, emails = 10, 30
	var wg sync.WaitGroup
	statuses := make([]int, n)
	results := make([]bulkResponse, n)
	for i := range n {
		list := leads
		if i%2 == 1 {
			list = vips
		}
		contacts := make([]any, emails)
		for e := range emails {
			contacts[e] = map[string]any{"mailId": fmt.Sprintf("Same%d@Example.com", e), "tags": []string{"t" + string(rune('a'+i))}}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i], results[i] = bulkAdd(t, api, list, map[string]any{"contacts": contacts})
		}()
	}
	wg.Wait()
	ids, created := map[string]map[string]bool{}, map[string]int{}
	for i := range n {
		if statuses[i] != http.StatusOK || len(results[i].Data.Items) != emails {
			t.Fatalf("request %d: status %d %+v", i, statuses[i], results[i])
		}
		for _, it := range results[i].Data.Items {
			if ids[it.MailID] == nil {
				ids[it.MailID] = map[string]bool{}
			}
			ids[it.MailID][it.ContactID] = true
			if it.Status == "created" {
				created[it.MailID]++
			}
		}
	}
	for mail, got := range ids {
		if len(got) != 1 || created[mail] != 1 {
			t.Errorf("%s: %d contact ids, %d created; want 1 and 1", mail, len(got), created[mail])
		}
	}
	p := listContacts(t, api, "limit=100")
	if p.Total != emails || len(p.Items) != emails {
		t.Fatalf("total %d items %d; want %d", p.Total, len(p.Items), emails)
	}
	for _, c := range p.Items {
		if len(c.Tags) != n || len(c.ListIDs) != 2 || len(c.Sources) != n {
			t.Errorf("%s: tags %d lists %d sources %d; want %d, 2, %d (no import lost)", c.MailID, len(c.Tags), len(c.ListIDs), len(c.Sources), n, n)
		}
	}
	if a, b := getList(t, api, leads).ContactCount, getList(t, api, vips).ContactCount; a != emails || b != emails {
		t.Errorf("list counts %d, %d; want %d, %d", a, b, emails, emails)
	}
}
