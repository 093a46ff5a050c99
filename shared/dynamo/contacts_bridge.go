package dynamo

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// The bridge: what reaches contacts and lists from outside the contact
// slice, in gifting's shapes, which that code keeps: add-recipient writes
// the recipient's contact in its transaction (planCreate, planMerge,
// PrepareContactUpsert), the launch reads its members' contacts
// (ContactsByID) and shows the campaign on them (contactItem), the
// campaign slice checks that a list exists (ContactList), the audience
// build matches contacts (storedContact.bridge), and tests make lists
// (CreateContactList). The decisions are the contact slice's
// (contact.Upsert, NewList), and a missing list is NOT_FOUND as the slice
// shows it. When the recipient slice writes contacts through the contact
// slice, and the others read them in its shape, this file goes.

// ContactUpsert is a prepared create or merge of one contact: the record
// as it will be, and the transaction items that write it. Put Items into a
// transaction (possibly with other items); when the transaction is
// cancelled, Conflicted says whether to prepare again and retry.
type ContactUpsert struct {
	Contact gifting.Contact
	// Created is true when no contact had the email: Items create one.
	Created bool
	Items   []types.TransactWriteItem
}

// Conflicted reports whether a cancelled transaction failed because someone
// else created or changed this contact concurrently (or the contacts
// counter was contended): prepare again and retry. reasons must be aligned
// with u.Items.
func (u ContactUpsert) Conflicted(reasons []types.CancellationReason) bool {
	for i := range u.Items {
		switch reasonCode(reasons, i) {
		case "ConditionalCheckFailed", "TransactionConflict":
			return true
		}
	}
	return false
}

// PrepareContactUpsert reads who has in's email and returns the
// transaction items that either create the contact (at the email's slot,
// only if absent; or, when the slot is taken by a contact whose email
// changed, under a new id, claiming the slot) with the contacts counter,
// or merge in into it (conditioned on the version read, so a concurrent
// change cancels the transaction instead of being lost). in is validated
// here: VALIDATION_FAILED when it is invalid.
func (s *Store) PrepareContactUpsert(ctx context.Context, orgID string, in gifting.ContactInput, src gifting.Source) (ContactUpsert, error) {
	ci := contact.InputOfCarried(in)
	if err := ci.Validate(); err != nil {
		return ContactUpsert{}, err
	}
	h, err := s.Holding(ctx, orgID, ci.MailID)
	if err != nil {
		return ContactUpsert{}, err
	}
	p, err := s.bridgePlan(orgID, h, ci, src)
	if err != nil {
		return ContactUpsert{}, err
	}
	u := ContactUpsert{Contact: p.contact, Created: !h.Found, Items: p.items}
	if u.Created {
		u.Items = append(u.Items, s.counterAdd(orgID, counterContacts, 1))
	}
	return u, nil
}

// contactPlan is add-recipient's part of a contact write: the contact as
// it will be, and its write items (without the counters).
type contactPlan struct {
	contact gifting.Contact
	items   []types.TransactWriteItem
}

// bridgePlan decides the upsert of in under h (contact.Upsert) and builds
// its write items.
func (s *Store) bridgePlan(orgID string, h contact.Holding, in contact.Input, src gifting.Source) (contactPlan, error) {
	p, err := contact.Upsert(h, orgID, in, contact.Source(src), "", s.Now())
	if err != nil {
		return contactPlan{contact: contact.Carried(p.Contact)}, err
	}
	items, _, err := s.planItems(orgID, p)
	return contactPlan{contact: contact.Carried(p.Contact), items: items}, err
}

// contactItem is the stored form of c as the next version of cur (the
// launch bills the item a campaign's update leaves with it).
func (s *Store) contactItem(orgID string, cur storedContact, c gifting.Contact) (item, error) {
	cc := contact.FromCarried(c)
	cc.Stored = contact.Stored{Version: cur.Ver, Place: cur.LSK, Holder: cur.Holder, Search: cur.Sx, Words: cur.Srch}
	return contactAttrs(orgID, cc)
}

// ContactsByID returns the live contacts of org with the given ids, in the
// order of ids; missing and deleted ones are skipped (Contacts).
func (s *Store) ContactsByID(ctx context.Context, orgID string, ids []string) ([]gifting.Contact, error) {
	contacts, err := s.Contacts(ctx, orgID, ids)
	return mapSlice(contacts, contact.Carried), err
}

// ContactList returns a contact list of org, or the slice's NOT_FOUND.
func (s *Store) ContactList(ctx context.Context, orgID, listID string) (gifting.ContactList, error) {
	l, err := s.List(ctx, orgID, listID)
	if errors.Is(err, contact.ErrListNotFound) {
		return gifting.ContactList{}, contact.ListNotFound(listID)
	}
	return gifting.ContactList(listItemOf(l)), err
}

// CreateContactList stores a new, empty list of org created by userID
// (contact.NewList: VALIDATION_FAILED for a missing or overlong name).
func (s *Store) CreateContactList(ctx context.Context, orgID, userID, name, description string) (gifting.ContactList, error) {
	l, err := contact.NewList(s.NewID(), orgID, userID, name, description, s.Now())
	if err != nil {
		return gifting.ContactList{}, err
	}
	return gifting.ContactList(listItemOf(l)), s.CommitNewList(ctx, l)
}

// bridge is the contact item c in gifting's shape (the audience build
// matches it).
func (c storedContact) bridge() gifting.Contact { return contact.Carried(c.contact()) }
