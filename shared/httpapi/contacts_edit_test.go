package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

func TestContactLists(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	var ids []string
	for _, name := range []string{"Charlie", "alpha", "Bravo"} {
		ids = append(ids, createList(t, api, name))
	}
	importContacts(t, api, ids[2], people(0, 2)...)

	t.Run("created list is returned with its id and zero count", func(t *testing.T) {
		res := api.Do("POST", "/api/campaigns/contact-lists", map[string]any{"name": "  Delta  ", "description": "d"})
		var body struct {
			Success    bool                `json:"success"`
			StatusCode int                 `json:"statusCode"`
			Data       gifting.ContactList `json:"data"`
		}
		res.JSON(t, &body)
		l := body.Data
		if res.Status != http.StatusCreated || !body.Success || body.StatusCode != 201 || l.ListID == "" ||
			l.Name != "Delta" || l.ContactCount != 0 || l.OrganizationID != "acme" || l.CreatedBy != "user-acme" {
			t.Fatalf("status %d body %+v", res.Status, body)
		}
		if got := getList(t, api, l.ListID); got.Name != "Delta" {
			t.Errorf("read back %+v", got)
		}
	})
	type listPage struct {
		Data struct {
			Items      []gifting.ContactList `json:"items"`
			Pagination gifting.Pagination    `json:"pagination"`
		} `json:"data"`
	}
	names := func(query string) ([]string, gifting.Pagination) {
		t.Helper()
		res := api.Do("GET", "/api/campaigns/contact-lists?"+query, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("list: %d %s", res.Status, res.Body)
		}
		var p listPage
		res.JSON(t, &p)
		var out []string
		for _, l := range p.Data.Items {
			out = append(out, l.Name)
		}
		return out, p.Data.Pagination
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"sortBy=name&sortOrder=asc", []string{"alpha", "Bravo", "Charlie", "Delta"}},
		{"sortBy=name&sortOrder=desc", []string{"Delta", "Charlie", "Bravo", "alpha"}},
		{"", []string{"Delta", "Bravo", "alpha", "Charlie"}},
		{"sortBy=createdAt&sortOrder=asc&page=2&limit=3", []string{"Delta"}},
		{"sortBy=contactCount&sortOrder=desc&limit=1", []string{"Bravo"}},
	} {
		t.Run("sorted "+tt.query, func(t *testing.T) {
			got, p := names(tt.query)
			if !slices.Equal(got, tt.want) || p.Total != 4 {
				t.Errorf("got %v (total %d), want %v of 4", got, p.Total, tt.want)
			}
		})
	}
	t.Run("count is carried on the list", func(t *testing.T) {
		if n := getList(t, api, ids[2]).ContactCount; n != 2 {
			t.Errorf("count = %d, want 2", n)
		}
	})
	for _, tt := range []struct {
		name  string
		body  any
		field string
	}{
		{"missing name", map[string]any{"description": "x"}, "name"},
		{"blank name", map[string]any{"name": "   "}, "name"},
		{"long name", map[string]any{"name": strings.Repeat("n", 201)}, "name"},
		{"unknown field", map[string]any{"name": "x", "owner": "me"}, "owner"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("POST", "/api/campaigns/contact-lists", tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	t.Run("bad sort", func(t *testing.T) {
		assertError(t, api.Do("GET", "/api/campaigns/contact-lists?sortBy=size", nil), http.StatusBadRequest, "VALIDATION_FAILED")
	})
	t.Run("another org sees none", func(t *testing.T) {
		_, key := testenv.Org(t, s, "globex", 0)
		other := api.WithKey(key)
		if got, p := namesOf(t, other); len(got) != 0 || p != 0 {
			t.Errorf("other org lists %v", got)
		}
		assertError(t, other.Do("GET", "/api/campaigns/contact-lists/"+ids[0], nil), http.StatusNotFound, "NOT_FOUND")
	})
}

func namesOf(t *testing.T, api *testenv.API) ([]string, int) {
	t.Helper()
	var p struct {
		Data struct {
			Items      []gifting.ContactList `json:"items"`
			Pagination gifting.Pagination    `json:"pagination"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/contact-lists", nil).JSON(t, &p)
	var out []string
	for _, l := range p.Data.Items {
		out = append(out, l.Name)
	}
	return out, p.Data.Pagination.Total
}

func TestUpdateContact(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	list := createList(t, api, "Leads")
	in := importContacts(t, api, list, people(0, 2)...)
	id, otherID := in.Data.Items[0].ContactID, in.Data.Items[1].ContactID
	patch := func(id string, body any) testenv.Response {
		return api.Do("PATCH", "/api/campaigns/contacts/"+id, body)
	}

	t.Run("fields change, others stay", func(t *testing.T) {
		res := patch(id, map[string]any{"jobTitle": "CTO", "lastName": "Lovelace", "tags": []string{"vip", "VIP", "speaker"},
			"address": map[string]any{"line1": "1 Main St", "city": "London", "state": "LDN", "country": "UK", "zip": "N1"}})
		if res.Status != http.StatusOK {
			t.Fatalf("status %d %s", res.Status, res.Body)
		}
		c := getContact(t, api, id)
		if c.JobTitle != "CTO" || c.LastName != "Lovelace" || c.FirstName != "First0" || c.FullName != "First0 Lovelace" {
			t.Errorf("got %s %s (%s), %s", c.FirstName, c.LastName, c.FullName, c.JobTitle)
		}
		if len(c.Tags) != 2 || c.Tags[1].Color != contact.TagColor("speaker") || c.Address.City != "London" ||
			len(c.Addresses) != 1 || !c.Addresses[0].IsPrimary {
			t.Errorf("tags %+v address %+v entries %+v", c.Tags, c.Address, c.Addresses)
		}
	})
	t.Run("email change moves uniqueness", func(t *testing.T) {
		if res := patch(id, map[string]any{"mailId": "Ada@New.example"}); res.Status != http.StatusOK {
			t.Fatalf("status %d %s", res.Status, res.Body)
		}
		c := getContact(t, api, id)
		if c.MailID != "ada@new.example" || len(c.Emails) != 2 || !c.Emails[1].IsPrimary || c.Emails[0].IsPrimary {
			t.Errorf("mailId %s emails %+v", c.MailID, c.Emails)
		}
		// The new address merges into this contact; the old one is free.
		out := importContacts(t, api, list, map[string]any{"mailId": "ADA@new.example"}, map[string]any{"mailId": "person0@example.com"})
		if out.Data.Items[0].ContactID != id || out.Data.Items[0].Status != "merged" || out.Data.Items[1].Status != "created" {
			t.Errorf("re-import: %+v", out.Data.Items)
		}
	})
	t.Run("email of another contact is 409", func(t *testing.T) {
		res := patch(id, map[string]any{"mailId": "PERSON1@example.com"})
		assertError(t, res, http.StatusConflict, "CONFLICT")
		if c := getContact(t, api, id); c.MailID != "ada@new.example" {
			t.Errorf("mailId changed to %s", c.MailID)
		}
		if c := getContact(t, api, otherID); c.MailID != "person1@example.com" {
			t.Errorf("other contact changed: %s", c.MailID)
		}
	})
	for _, tt := range []struct {
		name  string
		body  any
		field string
	}{
		{"invalid email", map[string]any{"mailId": "nope"}, "mailId"},
		{"empty email", map[string]any{"mailId": ""}, "mailId"},
		{"bad url", map[string]any{"linkedinUrl": "linkedin.com/in/x"}, "linkedinUrl"},
		{"long name", map[string]any{"firstName": strings.Repeat("a", 201)}, "firstName"},
		{"wrong type", map[string]any{"firstName": 3}, "firstName"},
		{"unknown field", map[string]any{"isDeleted": true}, "isDeleted"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := getContact(t, api, id)
			res := patch(id, tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
			if after := getContact(t, api, id); !after.UpdatedAt.Equal(before.UpdatedAt) {
				t.Error("a refused patch changed the contact")
			}
		})
	}
	t.Run("unknown contact is 404", func(t *testing.T) {
		assertError(t, patch("01NOSUCH", map[string]any{"jobTitle": "x"}), http.StatusNotFound, "NOT_FOUND")
	})
}
