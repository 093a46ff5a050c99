package contact_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestUpsert: an email no contact has makes a new contact where storage
// said it goes, joining the list; one a contact has merges into it (the
// version it was read at carried to the commit), joining the list unless
// it is in it already.
func TestUpsert(t *testing.T) {
	t.Parallel()
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := then.Add(time.Hour)
	src := contact.Source{Type: contact.SourceImport, Provider: contact.ProviderAPI}
	free := contact.Holding{Contact: contact.Contact{ContactID: "slot1", Stored: contact.Stored{Place: "-#ord", Holder: "slot1"}}}
	ada := stored(t, then)
	ada.ListIDs = []string{"L1"}
	inLists := func(n int) contact.Contact {
		c := stored(t, then)
		for i := range n {
			c.ListIDs = append(c.ListIDs, fmt.Sprint("L", i))
		}
		return c
	}
	in := contact.Input{MailID: "ada@example.com", LastName: "King", JobTitle: "CTO"}
	for _, tt := range []struct {
		name    string
		h       contact.Holding
		listID  string
		status  string
		joined  string
		lists   []string
		code    gifting.Code
		version int64
	}{
		{"a new contact joins its first list", free, "L2", contact.StatusCreated, "L2", []string{"L2"}, "", 0},
		{"a new contact without a list", free, "", contact.StatusCreated, "", []string{}, "", 0},
		{"a known contact joins another list", contact.Holding{Found: true, Contact: ada}, "L2", contact.StatusMerged, "L2", []string{"L1", "L2"}, "", 3},
		{"a member stays a member", contact.Holding{Found: true, Contact: ada}, "L1", contact.StatusMerged, "", []string{"L1"}, "", 3},
		{"a contact in the most lists joins no other", contact.Holding{Found: true, Contact: inLists(contact.MaxLists)}, "new",
			contact.StatusMerged, "", nil, gifting.CodeConflict, 3},
		{"a contact in the most lists still merges into one of them", contact.Holding{Found: true, Contact: inLists(contact.MaxLists)}, "L0",
			contact.StatusMerged, "", nil, "", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := contact.Upsert(tt.h, "acme", in, src, tt.listID, now)
			if tt.code != "" {
				if gifting.ErrorCode(err) != tt.code {
					t.Fatalf("Upsert = %v; want %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := p.Contact
			if p.Status != tt.status || p.Joined != tt.joined || (tt.lists != nil && !slices.Equal(c.ListIDs, tt.lists)) ||
				c.Stored.Version != tt.version {
				t.Errorf("plan %s joined %q lists %v version %d; want %s, %q, %v, %d", p.Status, p.Joined, c.ListIDs,
					c.Stored.Version, tt.status, tt.joined, tt.lists, tt.version)
			}
			// A merge fills only what the contact lacks (its last name
			// stays); a new contact takes the input.
			last := "Lovelace"
			if p.Created() {
				last = "King"
			}
			if c.LastName != last || c.JobTitle != "CTO" || !c.UpdatedAt.Equal(now) || c.Sources[len(c.Sources)-1] != (contact.Source{
				Type: contact.SourceImport, Provider: contact.ProviderAPI, AddedAt: now}) {
				t.Errorf("contact %+v; want the input merged (last name %s) and the source recorded", c, last)
			}
		})
	}
	t.Run("the merged tags would be too many", func(t *testing.T) {
		many := contact.Input{MailID: "ada@example.com", Tags: tags(50)}
		if _, err := contact.Upsert(contact.Holding{Found: true, Contact: ada}, "acme", many, src, "", now); gifting.ErrorCode(err) != gifting.CodeValidation {
			t.Errorf("Upsert = %v; want VALIDATION_FAILED", err)
		}
	})
	t.Run("the stored contact is not changed", func(t *testing.T) {
		c := contact.Holding{Found: true, Contact: ada}
		if _, err := contact.Upsert(c, "acme", in, src, "L2", now); err != nil || !slices.Equal(ada.ListIDs, []string{"L1"}) {
			t.Errorf("after Upsert the read contact's lists are %v, %v", ada.ListIDs, err)
		}
	})
}

// TestJoinAndLeave: an existing contact joins a list once, up to
// MaxLists lists, and leaves only a list it is in.
func TestJoinAndLeave(t *testing.T) {
	t.Parallel()
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := then.Add(time.Hour)
	c := stored(t, then)
	p, err := contact.Join(c, "L1", now)
	if err != nil || p.Status != contact.StatusAdded || p.Joined != "L1" || !slices.Equal(p.Contact.ListIDs, []string{"L1"}) ||
		!p.Contact.UpdatedAt.Equal(now) || len(c.ListIDs) != 0 {
		t.Fatalf("Join = %+v, %v", p, err)
	}
	again, err := contact.Join(p.Contact, "L1", now)
	if err != nil || again.Status != contact.StatusUnchanged || again.Joined != "" {
		t.Errorf("joining again = %+v, %v; want unchanged", again, err)
	}
	full := c
	for i := range contact.MaxLists {
		full.ListIDs = append(full.ListIDs, fmt.Sprint("L", i))
	}
	if _, err := contact.Join(full, "one more", now); gifting.ErrorCode(err) != gifting.CodeConflict {
		t.Errorf("joining a %dth list: %v; want CONFLICT", contact.MaxLists+1, err)
	}
	left, err := contact.Leave(full, "L3", now)
	if err != nil || len(left.ListIDs) != contact.MaxLists-1 || left.InList("L3") || !full.InList("L3") {
		t.Errorf("Leave = %v, %v", left.ListIDs, err)
	}
	if _, err := contact.Leave(c, "L3", now); gifting.ErrorCode(err) != gifting.CodeNotFound {
		t.Errorf("leaving a list it is not in: %v; want NOT_FOUND", err)
	}
}

// TestDeleted: a deleted contact's record is marked deleted, in no list,
// at the version it was read (its commit is conditioned on it).
func TestDeleted(t *testing.T) {
	t.Parallel()
	then := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := stored(t, then)
	c.ListIDs = []string{"L1", "L2"}
	gone := contact.Deleted(c, then.Add(time.Hour))
	if !gone.IsDeleted || len(gone.ListIDs) != 0 || gone.ListIDs == nil || !gone.UpdatedAt.Equal(then.Add(time.Hour)) ||
		gone.Stored != c.Stored || gone.MailID != c.MailID || len(c.ListIDs) != 2 {
		t.Errorf("Deleted = %+v", gone)
	}
}
