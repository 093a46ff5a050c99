package httpapi_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

func TestDeleteContact(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	leads, vips := createList(t, api, "Leads"), createList(t, api, "VIPs")
	in := importContacts(t, api, leads, people(0, 3)...)
	id := in.Data.Items[0].ContactID
	importContacts(t, api, vips, people(0, 1)...)

	res := api.Do("DELETE", "/api/campaigns/contacts/"+id, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	t.Run("gone from reads", func(t *testing.T) {
		assertError(t, api.Do("GET", "/api/campaigns/contacts/"+id, nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, api.Do("PATCH", "/api/campaigns/contacts/"+id, map[string]any{"jobTitle": "x"}), http.StatusNotFound, "NOT_FOUND")
		assertError(t, api.Do("DELETE", "/api/campaigns/contacts/"+id, nil), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("gone from pages, search and counts", func(t *testing.T) {
		p := listContacts(t, api, "")
		if p.Total != 2 || len(p.Items) != 2 || slices.ContainsFunc(p.Items, func(c gifting.Contact) bool { return c.ContactID == id }) {
			t.Errorf("total %d items %d; want 2 without the deleted one", p.Total, len(p.Items))
		}
		if p := listContacts(t, api, "search=person0@"); p.Total != 0 {
			t.Errorf("search finds %d deleted contacts", p.Total)
		}
		if p := listContacts(t, api, "page=2&limit=1"); len(p.Items) != 1 || p.Items[0].MailID != "person0@example.com" && p.Items[0].ContactID == id {
			t.Errorf("page 2 = %+v", p.Items)
		}
		if a, b := getList(t, api, leads).ContactCount, getList(t, api, vips).ContactCount; a != 2 || b != 0 {
			t.Errorf("list counts %d, %d; want 2, 0", a, b)
		}
	})
	t.Run("email can be imported again as a new contact", func(t *testing.T) {
		out := importContacts(t, api, vips, people(0, 1)...)
		it := out.Data.Items[0]
		if it.Status != "created" || it.ContactID == id {
			t.Errorf("re-import = %+v; want a new contact", it)
		}
		if n := getList(t, api, vips).ContactCount; n != 1 {
			t.Errorf("VIPs count = %d, want 1", n)
		}
		if p := listContacts(t, api, ""); p.Total != 3 {
			t.Errorf("total = %d, want 3", p.Total)
		}
	})
	t.Run("its id cannot be added to a list", func(t *testing.T) {
		status, out := bulkAdd(t, api, leads, map[string]any{"contactIds": []string{id}})
		if status != http.StatusBadRequest || out.Data.Items[0].Status != "failed" {
			t.Errorf("status %d, %+v", status, out.Data.Items)
		}
	})
}

func TestRemoveContactFromList(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	leads, vips := createList(t, api, "Leads"), createList(t, api, "VIPs")
	in := importContacts(t, api, leads, people(0, 2)...)
	id := in.Data.Items[0].ContactID
	bulkAdd(t, api, vips, map[string]any{"contactIds": []string{id}})
	path := "/api/campaigns/contact-lists/" + leads + "/contacts/" + id

	if res := api.Do("DELETE", path, nil); res.Status != http.StatusOK {
		t.Fatalf("remove: %d %s", res.Status, res.Body)
	}
	if c := getContact(t, api, id); !slices.Equal(c.ListIDs, []string{vips}) {
		t.Errorf("listIds = %v, want [%s]", c.ListIDs, vips)
	}
	if a, b := getList(t, api, leads).ContactCount, getList(t, api, vips).ContactCount; a != 1 || b != 1 {
		t.Errorf("counts %d, %d; want 1, 1", a, b)
	}
	if p := listContacts(t, api, ""); p.Total != 2 {
		t.Errorf("contacts total %d; the contact itself must stay", p.Total)
	}
	for _, tt := range []struct{ name, path string }{
		{"not in the list any more", path},
		{"unknown list", "/api/campaigns/contact-lists/01NOSUCH/contacts/" + id},
		{"unknown contact", "/api/campaigns/contact-lists/" + leads + "/contacts/01NOSUCH"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assertError(t, api.Do("DELETE", tt.path, nil), http.StatusNotFound, "NOT_FOUND")
			if n := getList(t, api, leads).ContactCount; n != 1 {
				t.Errorf("count = %d, want 1", n)
			}
		})
	}
	t.Run("another org's list is 404", func(t *testing.T) {
		_, key := testenv.Org(t, s, "globex", 0)
		assertError(t, api.WithKey(key).Do("DELETE", "/api/campaigns/contact-lists/"+vips+"/contacts/"+id, nil), http.StatusNotFound, "NOT_FOUND")
		if n := getList(t, api, vips).ContactCount; n != 1 {
			t.Errorf("count = %d, want 1", n)
		}
	})
}

func TestEnrich(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	list := createList(t, api, "Leads")
	importContacts(t, api, list,
		map[string]any{"mailId": "ada@example.com", "firstName": "Ada", "lastName": "Lovelace", "companyName": "Engines",
			"jobTitle": "CTO", "linkedinUrl": "https://www.linkedin.com/in/ada-l/"},
		map[string]any{"mailId": "grace@example.com", "firstName": "Grace", "lastName": "Hopper", "companyName": "Navy"},
		map[string]any{"mailId": "other@example.com", "firstName": "Someone", "lastName": "Else", "companyName": "Engines",
			"linkedinUrl": "https://linkedin.com/in/grace"},
	)
	type answer struct {
		Success bool           `json:"success"`
		Message string         `json:"message"`
		Data    enrichmentBody `json:"data"`
	}
	enrich := func(api *testenv.API, body any) (int, answer) {
		res := api.Do("POST", "/api/campaigns/enrichment/enrich", body)
		var a answer
		res.JSON(t, &a)
		return res.Status, a
	}
	for _, tt := range []struct {
		name, wantMail, wantBy string
		body                   map[string]any
	}{
		{"by linkedin url", "ada@example.com", "linkedin_url", map[string]any{"linkedin_url": "http://linkedin.com/in/ADA-L?trk=x"}},
		{"linkedin beats name", "other@example.com", "linkedin_url",
			map[string]any{"linkedin_url": "https://www.linkedin.com/in/grace", "firstname": "Grace", "lastname": "Hopper", "company_name": "Navy"}},
		{"by name and company", "grace@example.com", "name_company",
			map[string]any{"firstname": "grace", "lastname": "HOPPER", "company_name": "navy"}},
		{"unknown linkedin falls back to name", "grace@example.com", "name_company",
			map[string]any{"linkedin_url": "https://linkedin.com/in/nobody", "firstname": "Grace", "lastname": "Hopper", "company_name": "Navy"}},
		{"no match", "", "", map[string]any{"firstname": "Ada", "lastname": "Lovelace", "company_name": "Navy"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, a := enrich(api, tt.body)
			if status != http.StatusOK || !a.Success || a.Data.Provider != "organization_contacts" {
				t.Fatalf("status %d %+v", status, a)
			}
			if tt.wantMail == "" {
				if a.Data.Matched || a.Data.Person != nil || a.Message != "No match found" {
					t.Errorf("got %+v, want no match", a)
				}
				return
			}
			if !a.Data.Matched || a.Data.Person == nil || a.Data.Person.Email != tt.wantMail || a.Data.MatchedBy != tt.wantBy {
				t.Errorf("got %+v (person %+v); want %s by %s", a.Data, a.Data.Person, tt.wantMail, tt.wantBy)
			}
		})
	}
	t.Run("person carries the contact's data", func(t *testing.T) {
		_, a := enrich(api, map[string]any{"linkedin_url": "https://www.linkedin.com/in/ada-l"})
		if p := a.Data.Person; p == nil || p.JobTitle != "CTO" || p.FullName != "Ada Lovelace" || p.ContactID == "" {
			t.Errorf("person = %+v", p)
		}
	})
	for _, tt := range []struct {
		name  string
		body  any
		field string
	}{
		{"nothing to look up", map[string]any{}, "firstname"},
		{"name without company", map[string]any{"firstname": "Ada", "lastname": "Lovelace"}, "company_name"},
		{"bad url", map[string]any{"linkedin_url": "ada"}, "linkedin_url"},
		{"unknown field", map[string]any{"email": "ada@example.com"}, "email"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("POST", "/api/campaigns/enrichment/enrich", tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	t.Run("another org's contacts are not used", func(t *testing.T) {
		_, key := testenv.Org(t, s, "globex", 0)
		status, a := enrich(api.WithKey(key), map[string]any{"linkedin_url": "https://www.linkedin.com/in/ada-l"})
		if status != http.StatusOK || a.Data.Matched {
			t.Errorf("status %d %+v; want no match", status, a.Data)
		}
	})
}
