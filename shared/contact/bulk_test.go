package contact_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestCheckBulk: a bulk add sends contacts or contact ids, not both, at
// least one and at most 100.
func TestCheckBulk(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name                  string
		contactsSent, idsSent bool
		contacts, ids         int
		field                 string
	}{
		{"100 contacts", true, false, 100, 0, ""},
		{"100 ids", false, true, 0, 100, ""},
		{"both", true, true, 1, 1, "contacts"},
		{"none", false, false, 0, 0, "contacts"},
		{"empty contacts", true, false, 0, 0, "contacts"},
		{"101 contacts", true, false, 101, 0, "contacts"},
		{"101 ids", false, true, 0, 101, "contactIds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := contact.CheckBulk(tt.contactsSent, tt.idsSent, tt.contacts, tt.ids)
			var e *gifting.Error
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("CheckBulk = %v, want nil", err)
			case tt.field != "" && (!asDomainError(err, &e) || e.Code != gifting.CodeValidation || e.Details[tt.field] == ""):
				t.Errorf("CheckBulk = %v; want VALIDATION_FAILED naming %s", err, tt.field)
			}
		})
	}
}

// TestBatch: an import's inputs are validated one by one and an email's
// repeats fold into its first input, so the chunk writes each email once;
// the results answer every input given, a repeat as merged into the same
// contact, a refused input alone.
func TestBatch(t *testing.T) {
	t.Parallel()
	b := contact.NewBatch([]contact.Input{
		{MailID: "Ada@Example.com", FirstName: "Ada"},
		{MailID: "not-an-email"},
		{MailID: "grace@example.com"},
		{MailID: "ada@example.COM", LastName: "Lovelace", Tags: []string{"vip"}},
		{MailID: "ada@example.com", Tags: tags(50)},
		{MailID: "kay@example.com", LinkedinURL: "linkedin/kay"},
	})
	if len(b.Inputs) != 2 || b.Inputs[0].MailID != "ada@example.com" || b.Inputs[0].LastName != "Lovelace" ||
		len(b.Inputs[0].Tags) != 1 || b.Inputs[1].MailID != "grace@example.com" {
		t.Fatalf("inputs %+v; want ada (absorbing its repeat) and grace", b.Inputs)
	}
	plans := []contact.Plan{
		{Status: contact.StatusCreated, Contact: contact.Contact{ContactID: "c-ada", MailID: "ada@example.com"}},
		{},
	}
	errs := []error{nil, errors.New("injected")}
	got := b.Results(10, plans, errs)
	want := []struct{ status, contactID, mail, reason string }{
		{contact.StatusCreated, "c-ada", "ada@example.com", ""},
		{contact.StatusFailed, "", "", "mailId is not a valid email address"},
		{contact.StatusFailed, "", "grace@example.com", "the contact could not be saved; retry this item"},
		{contact.StatusMerged, "c-ada", "ada@example.com", ""},
		{contact.StatusFailed, "", "ada@example.com", "tags merging would give the contact 51 tags"},
		{contact.StatusFailed, "", "kay@example.com", "linkedinUrl must be an http(s) URL"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Index != 10+i || g.Status != w.status || g.ContactID != w.contactID || g.MailID != w.mail || !strings.HasPrefix(g.Reason, w.reason) {
			t.Errorf("result %d = %+v; want %+v", i, g, w)
		}
	}
}

// TestItemFail: a failed item says why in words a user may read: a domain
// error's message, its field problems in order; an internal error's text
// is never shown.
func TestItemFail(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		err     error
		reason  string
		details bool
	}{
		{"a domain error", gifting.Errorf(gifting.CodeConflict, "the contact is already in 40 lists"), "the contact is already in 40 lists", false},
		{"field problems, sorted", &gifting.Error{Code: gifting.CodeValidation, Message: "bad",
			Details: map[string]string{"tags": "too many", "mailId": "is required"}}, "mailId is required; tags too many", true},
		{"an internal error", errors.New("dial tcp 10.0.0.1: connection refused"), "the contact could not be saved; retry this item", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			it := contact.Failed(3, "a@b.co", tt.err)
			if it.Status != contact.StatusFailed || it.Index != 3 || it.MailID != "a@b.co" || it.Reason != tt.reason || (it.Details != nil) != tt.details {
				t.Errorf("Failed = %+v; want reason %q", it, tt.reason)
			}
		})
	}
}

// TestBulkResultTotals: the totals count each status.
func TestBulkResultTotals(t *testing.T) {
	t.Parallel()
	var r contact.BulkResult
	for _, s := range []string{contact.StatusCreated, contact.StatusCreated, contact.StatusMerged, contact.StatusAdded,
		contact.StatusUnchanged, contact.StatusFailed} {
		r.Add(contact.Item{Status: s})
	}
	if r.Created != 2 || r.Merged != 1 || r.Added != 1 || r.Unchanged != 1 || r.Failed != 1 || len(r.Items) != 6 {
		t.Errorf("totals %+v", r)
	}
}
