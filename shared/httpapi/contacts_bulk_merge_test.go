package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"
)

// tagNames returns n distinct tag names starting with prefix.
func tagNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%02d", prefix, i)
	}
	return out
}

// A repeated email within one request merges as a later request would: the
// full name made of first and last name follows the names filled in.
func TestBulkAddRepeatInOneRequestFollowsNames(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	leads := createList(t, api, "Leads")
	out := importContacts(t, api, leads,
		map[string]any{"email": "ann@example.com", "firstName": "Ann"},
		map[string]any{"mailId": "ANN@example.com", "lastName": "Lee"},
	)
	c := getContact(t, api, out.Data.Items[0].ContactID)
	if c.FirstName != "Ann" || c.LastName != "Lee" || c.FullName != "Ann Lee" {
		t.Errorf("name %q %q, fullName %q; want Ann Lee, fullName \"Ann Lee\"", c.FirstName, c.LastName, c.FullName)
	}
	if p := listContacts(t, api, "search=ann+lee"); p.Total != 1 {
		t.Errorf("search \"ann lee\" found %d contacts, want 1", p.Total)
	}
}

// Merging never gives a contact more tags than a contact may have (50): the
// item whose tags would go over fails, naming tags, and the contact keeps
// the tags it had.
func TestBulkAddMergeKeepsTagLimit(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	leads := createList(t, api, "Leads")
	t.Run("repeats within one request", func(t *testing.T) {
		status, out := bulkAdd(t, api, leads, map[string]any{"contacts": []map[string]any{
			{"mailId": "tags@example.com", "tags": tagNames("a", 30)},
			{"mailId": "tags@example.com", "tags": tagNames("b", 30)},
			{"mailId": "tags@example.com", "tags": tagNames("a", 10)},
		}})
		if status != http.StatusMultiStatus || out.Data.Failed != 1 {
			t.Fatalf("status %d, %+v; want 207 with one failed item", status, out.Data.bulkResult)
		}
		it := out.Data.Items[1]
		if it.Status != "failed" || it.Details["tags"] == "" {
			t.Errorf("second item = %+v; want failed, naming tags", it)
		}
		c := getContact(t, api, out.Data.Items[0].ContactID)
		if len(c.Tags) != 30 {
			t.Errorf("contact has %d tags, want the first item's 30", len(c.Tags))
		}
	})
	t.Run("into a stored contact", func(t *testing.T) {
		first := importContacts(t, api, leads, map[string]any{"mailId": "stored@example.com", "tags": tagNames("a", 40)})
		status, out := bulkAdd(t, api, leads, map[string]any{"contacts": []map[string]any{
			{"mailId": "stored@example.com", "firstName": "Sam", "tags": tagNames("b", 20)},
		}})
		if status != http.StatusBadRequest || out.Data.Items[0].Details["tags"] == "" || out.Details["contacts[0]"] == "" {
			t.Fatalf("status %d, %+v; want 400 naming contacts[0] and tags", status, out)
		}
		c := getContact(t, api, first.Data.Items[0].ContactID)
		if len(c.Tags) != 40 || c.FirstName != "" {
			t.Errorf("contact has %d tags, firstName %q; want 40 and nothing written", len(c.Tags), c.FirstName)
		}
		// Tags it already has do not count twice.
		again := importContacts(t, api, leads, map[string]any{"mailId": "stored@example.com", "tags": tagNames("A", 40)})
		if again.Data.Items[0].Status != "merged" {
			t.Errorf("re-import of the same tags = %+v; want merged", again.Data.Items[0])
		}
	})
}
