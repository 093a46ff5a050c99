package contact_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

func ref[T any](v T) *T { return &v }

// stored is a contact as an import of Ada left it, at version 3.
func stored(t *testing.T, then time.Time) contact.Contact {
	t.Helper()
	in := contact.Input{MailID: "ada@example.com", FirstName: "Ada", LastName: "Lovelace", Tags: []string{"vip"},
		Address: contact.Address{Line1: "1 Main St", City: "London"}}
	if err := in.Validate(); err != nil {
		t.Fatal(err)
	}
	return contact.New("c1", "acme", contact.Stored{Version: 3, Place: "L1#ord"}, in, contact.Source{Type: contact.SourceImport}, then)
}

// TestPatchApply: a patch changes what it sends and is checked as a new
// contact is; a refused patch changes nothing.
func TestPatchApply(t *testing.T) {
	t.Parallel()
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := then.Add(time.Hour)
	for _, tt := range []struct {
		name  string
		patch contact.Patch
		field string // the field a refused patch names
		check func(t *testing.T, c contact.Contact)
	}{
		{"notes and company id", contact.Patch{Notes: ref(" met at the fair "), CompanyID: ref("co-1")}, "", func(t *testing.T, c contact.Contact) {
			if c.Notes != "met at the fair" || c.CompanyID != "co-1" || c.FirstName != "Ada" {
				t.Errorf("notes %q company %q first %q", c.Notes, c.CompanyID, c.FirstName)
			}
		}},
		{"a derived full name follows the names", contact.Patch{LastName: ref("King")}, "", func(t *testing.T, c contact.Contact) {
			if c.FullName != "Ada King" {
				t.Errorf("full name %q, want Ada King", c.FullName)
			}
		}},
		{"a new email is primary, the old one stays", contact.Patch{MailID: ref(" Augusta@Example.com ")}, "", func(t *testing.T, c contact.Contact) {
			if c.MailID != "augusta@example.com" || len(c.Emails) != 2 || c.Emails[0].IsPrimary || !c.Emails[1].IsPrimary ||
				c.Emails[1].Source.Type != contact.SourceAPI {
				t.Errorf("mailId %q emails %+v", c.MailID, c.Emails)
			}
		}},
		{"a new address is primary", contact.Patch{Address: &contact.Address{Line1: "2 High St", City: "Bath"}}, "", func(t *testing.T, c contact.Contact) {
			if c.Address.City != "Bath" || len(c.Addresses) != 2 || c.Addresses[0].IsPrimary || !c.Addresses[1].IsPrimary {
				t.Errorf("address %+v entries %+v", c.Address, c.Addresses)
			}
		}},
		{"an empty address clears it", contact.Patch{Address: &contact.Address{}}, "", func(t *testing.T, c contact.Contact) {
			if !c.Address.IsZero() || len(c.Addresses) != 1 || c.Addresses[0].IsPrimary {
				t.Errorf("address %+v entries %+v", c.Address, c.Addresses)
			}
		}},
		{"tags replace the contact's", contact.Patch{Tags: []string{"speaker", " Speaker "}}, "", func(t *testing.T, c contact.Contact) {
			if len(c.Tags) != 1 || c.Tags[0] != (contact.Tag{Name: "speaker", Color: contact.TagColor("speaker")}) {
				t.Errorf("tags %+v", c.Tags)
			}
		}},
		{"an empty email", contact.Patch{MailID: ref(" ")}, "mailId", nil},
		{"an invalid email", contact.Patch{MailID: ref("ada")}, "mailId", nil},
		{"long notes", contact.Patch{Notes: ref(strings.Repeat("n", 5001))}, "notes", nil},
		{"long company id", contact.Patch{CompanyID: ref(strings.Repeat("c", 201))}, "companyId", nil},
		{"a bad URL", contact.Patch{LinkedinURL: ref("linkedin.com/in/ada")}, "linkedinUrl", nil},
		{"too many tags", contact.Patch{Tags: tags(51)}, "tags", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := stored(t, then)
			before := fmt.Sprintf("%+v", c)
			err := tt.patch.Apply(&c, now)
			if tt.field != "" {
				var e *gifting.Error
				if !asDomainError(err, &e) || e.Code != gifting.CodeValidation || e.Details[tt.field] == "" {
					t.Fatalf("Apply = %v; want VALIDATION_FAILED naming %s", err, tt.field)
				}
				if fmt.Sprintf("%+v", c) != before {
					t.Errorf("a refused patch changed the contact")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.UpdatedAt.Equal(now) || c.Stored != (contact.Stored{Version: 3, Place: "L1#ord"}) {
				t.Errorf("updatedAt %v stored %+v; want now and the version it was read at", c.UpdatedAt, c.Stored)
			}
			tt.check(t, c)
		})
	}
}

// TestListPatch: a patch applies what it sends and moves updatedAt, and a
// refused patch leaves the list as it was.
func TestListPatch(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	then := now.Add(-time.Hour)
	for _, tt := range []struct {
		name  string
		patch contact.ListPatch
		field string
	}{
		{"description changes", contact.ListPatch{Description: ref("new")}, ""},
		{"blank name", contact.ListPatch{Name: ref(" ")}, "name"},
		{"long name", contact.ListPatch{Name: ref(strings.Repeat("n", 201))}, "name"},
		{"long description", contact.ListPatch{Description: ref(strings.Repeat("d", 2001))}, "description"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := contact.List{Name: "L", Description: "old", UpdatedAt: then}
			err := tt.patch.Apply(&l, now)
			if tt.field == "" {
				if err != nil || l.Name != "L" || l.Description != "new" || !l.UpdatedAt.Equal(now) {
					t.Errorf("after patch = %+v, %v", l, err)
				}
				return
			}
			var e *gifting.Error
			if !asDomainError(err, &e) || e.Code != gifting.CodeValidation || e.Details[tt.field] == "" {
				t.Fatalf("Apply = %v; want VALIDATION_FAILED naming %s", err, tt.field)
			}
			if l.Name != "L" || l.Description != "old" || !l.UpdatedAt.Equal(then) {
				t.Errorf("a refused patch changed the list: %+v", l)
			}
		})
	}
}

// TestNewList: a new list is named, trimmed, and empty.
func TestNewList(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	l, err := contact.NewList("L1", "acme", "u1", "  Leads ", " warm ", now)
	if err != nil || l != (contact.List{ListID: "L1", OrganizationID: "acme", Name: "Leads", Description: "warm", CreatedBy: "u1",
		CreatedAt: now, UpdatedAt: now}) {
		t.Errorf("NewList = %+v, %v", l, err)
	}
	if _, err := contact.NewList("L2", "acme", "u1", strings.Repeat("é", 200), strings.Repeat("d", 2000), now); err != nil {
		t.Errorf("a name and description at their limits: %v", err)
	}
	if _, err := contact.NewList("L3", "acme", "u1", "", "", now); gifting.ErrorCode(err) != gifting.CodeValidation {
		t.Errorf("a list without a name: %v; want VALIDATION_FAILED", err)
	}
}
