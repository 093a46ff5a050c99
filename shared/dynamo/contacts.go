package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/contact"
)

// The contact slice's storage: the loads of contacts and of who has an
// email (this file), the items (contacts_items.go), the commits
// (contacts_commit.go, contacts_edit.go), the pages (contacts_page.go),
// the lists (contactlists.go, contactlists_edit.go) and enrichment's
// candidates (enrich.go); shared/contact decides. The areas not yet moved
// read through contacts_bridge.go.
//
// An email is unique within an organization through its slot: the contact
// item at CONTACT#<slotID(email)>, which is the contact created for that
// email, and names in holder the contact that has the email now (slotID).

// The store implements the contact slice's port.
var _ contact.Store = (*Store)(nil)

// counterContacts counts the live contacts of an organization.
const counterContacts = "CONTACT"

// contact reads a live contact with its version; contact.ErrNotFound when
// there is none (or only the slot of an email is at its key).
func (s *Store) contact(ctx context.Context, orgID, contactID string) (storedContact, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: key(orgPK(orgID), contactSK(contactID)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return storedContact{}, fmt.Errorf("get contact: %w", err)
	}
	c, err := decodeContact(out.Item)
	if err == nil && c.ContactID == "" {
		err = contact.ErrNotFound
	}
	return c, err
}

// Contact returns a live contact of org; contact.ErrNotFound for a
// missing or deleted one.
func (s *Store) Contact(ctx context.Context, orgID, contactID string) (contact.Contact, error) {
	c, err := s.contact(ctx, orgID, contactID)
	if err != nil {
		return contact.Contact{}, err
	}
	return c.contact(), nil
}

// Contacts returns the live contacts of org with the given ids, in the
// order of ids; missing and deleted ones are skipped. It reads 100 per
// BatchGetItem.
func (s *Store) Contacts(ctx context.Context, orgID string, ids []string) ([]contact.Contact, error) {
	return s.contactsIn(ctx, orgID, ids, true)
}

// ListedContacts is Contacts eventually consistent (contact.Store): a
// page whose ids an index gave, at half the read units.
func (s *Store) ListedContacts(ctx context.Context, orgID string, ids []string) ([]contact.Contact, error) {
	return s.contactsIn(ctx, orgID, ids, false)
}

// contactsIn is Contacts, strongly consistent or not.
func (s *Store) contactsIn(ctx context.Context, orgID string, ids []string, consistent bool) ([]contact.Contact, error) {
	stored, err := s.contactsByIDWith(ctx, orgID, ids, consistent)
	if err != nil {
		return nil, err
	}
	out := make([]contact.Contact, 0, len(ids))
	for _, id := range ids {
		if c, ok := stored[id]; ok {
			out = append(out, c.contact())
		}
	}
	return out, nil
}

// contactsByID reads contacts by id into a map; missing ones are absent.
func (s *Store) contactsByID(ctx context.Context, orgID string, ids []string) (map[string]storedContact, error) {
	return s.contactsByIDWith(ctx, orgID, ids, true)
}

// contactsByIDWith is contactsByID, strongly consistent or not.
func (s *Store) contactsByIDWith(ctx context.Context, orgID string, ids []string, consistent bool) (map[string]storedContact, error) {
	keys := make([]item, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			keys = append(keys, key(orgPK(orgID), contactSK(id)))
		}
	}
	items, err := s.batchGetAs(ctx, keys, consistent)
	if err != nil {
		return nil, err
	}
	out := make(map[string]storedContact, len(items))
	for _, it := range items {
		c, err := decodeContact(it)
		if err != nil {
			return nil, err
		}
		if c.ContactID != "" {
			out[c.ContactID] = c
		}
	}
	return out, nil
}

// contactRange is the query of org's contact items in the table (live
// contacts and email slots holding none), in id order unless forward is
// false; ids are not creation-ordered.
func (s *Store) contactRange(orgID string, forward bool) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{
			":pk":     str(orgPK(orgID)),
			":prefix": str(contactPrefix),
		},
		ScanIndexForward: aws.Bool(forward),
	}
}

// OpenImport reads the list a bulk add fills and, in the same request,
// whether the organization's contacts are all in the slot model (its
// contacts step of `admin migrate` is done, or it was created with slots):
// then no email has a legacy marker to look for (contact.Import.Legacy).
func (s *Store) OpenImport(ctx context.Context, orgID, listID string) (contact.Import, error) {
	got, err := s.batchGet(ctx, []item{key(orgPK(orgID), listSK(listID)), key(orgPK(orgID), migrateSK(stepContacts))})
	if err != nil {
		return contact.Import{}, err
	}
	var listFound, slotsOnly bool
	for _, it := range got {
		switch attrS(it, "SK") {
		case listSK(listID):
			listFound = true
		case migrateSK(stepContacts):
			var c migrationCursor
			if err := unmarshal(it, &c); err != nil {
				return contact.Import{}, err
			}
			slotsOnly = c.Done
		}
	}
	if !listFound {
		return contact.Import{}, contact.ErrListNotFound
	}
	return contact.Import{ListID: listID, Legacy: !slotsOnly}, nil
}

// Holdings reads who has each email with two reads in all: the emails'
// slots (and, for an import that is Legacy, their markers) in one
// BatchGetItem (two for 100 emails with markers), then the contacts they
// name that the first read did not already return, in another. A contact
// named but not found went between the two reads: its holding is Gone.
func (s *Store) Holdings(ctx context.Context, orgID string, imp contact.Import, emails []string) ([]contact.Holding, error) {
	keys := make([]item, 0, 2*len(emails))
	for _, email := range emails {
		k := slotKeys(orgID, email)
		if !imp.Legacy {
			k = k[:1] // the slot; no marker to look for
		}
		keys = append(keys, k...)
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	bySK := bySortKey(got)
	slots := make([]emailSlot, len(emails))
	var ids []string
	for i, email := range emails {
		if slots[i], err = slotOf(orgID, email, bySK); err != nil {
			return nil, err
		}
		if slots[i].holder != "" && slots[i].cur == nil {
			ids = append(ids, slots[i].holder)
		}
	}
	stored, err := s.contactsByID(ctx, orgID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]contact.Holding, len(emails))
	for i, email := range emails {
		sl := slots[i]
		cur, ok := stored[sl.holder]
		if sl.cur != nil {
			cur, ok = *sl.cur, true
		}
		switch {
		case sl.holder == "":
			out[i] = newHolding(orgID, email, sl.taken)
		case ok:
			out[i] = contact.Holding{Found: true, Contact: cur.contact()}
		default:
			out[i] = contact.Holding{Gone: true}
		}
	}
	return out, nil
}

// Holding reads who has one email: its slot and legacy marker, then the
// contact they name unless the slot is that contact. A contact named but
// gone meanwhile (its slot released too) makes it read again.
func (s *Store) Holding(ctx context.Context, orgID, email string) (contact.Holding, error) {
	for attempt := 1; ; attempt++ {
		got, err := s.batchGet(ctx, slotKeys(orgID, email))
		if err != nil {
			return contact.Holding{}, err
		}
		sl, err := slotOf(orgID, email, bySortKey(got))
		if err != nil {
			return contact.Holding{}, err
		}
		if sl.holder == "" {
			return newHolding(orgID, email, sl.taken), nil
		}
		cur := sl.cur
		if cur == nil {
			c, err := s.contact(ctx, orgID, sl.holder)
			if errors.Is(err, contact.ErrNotFound) && attempt < 3 {
				continue
			}
			if err != nil {
				return contact.Holding{}, err
			}
			cur = &c
		}
		return contact.Holding{Found: true, Contact: cur.contact()}, nil
	}
}

// newHolding names where a new contact for the free email goes: at the
// email's slot, which it then holds itself; or, when an item is there
// already (the slot of a contact whose email changed since), under a new
// id, claiming the slot (planItems). Its creation-ordered key is taken
// now, so the contacts of one import list in the order given.
func newHolding(orgID, email string, slotTaken bool) contact.Holding {
	ord := newContactOrd()
	id := slotID(orgID, email)
	if slotTaken {
		id = newContactID()
	}
	st := contact.Stored{Place: contactLSK("", ord)}
	if !slotTaken {
		st.Holder = id
	}
	return contact.Holding{Contact: contact.Contact{ContactID: id, Stored: st}}
}

// emailMarker is the legacy item that made an email unique within an
// organization (EMAIL#<email>): written by the model before slots, read
// until `admin migrate` has replaced every one with a slot.
type emailMarker struct {
	ContactID string `json:"contactId"`
}

// emailSlot is what the reads of an email's slot found: the contact that
// has the email ("" when it is free), that contact's item when the read
// already holds it, and whether an item occupies the slot (so a create
// cannot put the new contact there).
type emailSlot struct {
	holder string
	cur    *storedContact
	taken  bool
}

// slotKeys are the keys read to find who has email: its slot and its
// legacy EMAIL# marker (found until `admin migrate` has run).
func slotKeys(orgID, email string) []item {
	return []item{key(orgPK(orgID), contactSK(slotID(orgID, email))), key(orgPK(orgID), emailSK(email))}
}

// slotOf interprets the items read at slotKeys(orgID, email), found by
// sort key.
func slotOf(orgID, email string, bySK map[string]item) (emailSlot, error) {
	if it := bySK[emailSK(email)]; it != nil {
		var m emailMarker
		if err := unmarshal(it, &m); err != nil {
			return emailSlot{}, err
		}
		return emailSlot{holder: m.ContactID, taken: bySK[contactSK(slotID(orgID, email))] != nil}, nil
	}
	it := bySK[contactSK(slotID(orgID, email))]
	if it == nil {
		return emailSlot{}, nil
	}
	c, err := decodeContact(it)
	if err != nil {
		return emailSlot{}, err
	}
	sl := emailSlot{holder: c.Holder, taken: true}
	if c.ContactID != "" && c.ContactID == c.Holder {
		sl.cur = &c
	}
	return sl, nil
}

// bySortKey indexes items of one partition by sort key.
func bySortKey(items []item) map[string]item {
	out := make(map[string]item, len(items))
	for _, it := range items {
		out[attrS(it, "SK")] = it
	}
	return out
}
