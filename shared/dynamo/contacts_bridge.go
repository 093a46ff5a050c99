package dynamo

import (
	"context"
	"errors"
	"fmt"

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
	ci := inputOf(in)
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

// planCreate plans a new contact for in (validated) at its email, which no
// contact has; slotTaken says an item occupies its slot. listID must be
// "" (add-recipient joins no list).
func (s *Store) planCreate(orgID string, in gifting.ContactInput, src gifting.Source, listID string, slotTaken bool) (contactPlan, error) {
	if listID != "" {
		return contactPlan{}, fmt.Errorf("planCreate joins no list (%s)", listID)
	}
	return s.bridgePlan(orgID, newHolding(orgID, in.MailID, slotTaken), inputOf(in), src)
}

// planMerge plans merging in (validated) into the stored contact cur,
// conditioned on cur's version. listID must be "".
func (s *Store) planMerge(orgID string, cur storedContact, in gifting.ContactInput, src gifting.Source, listID string) (contactPlan, error) {
	if listID != "" {
		return contactPlan{}, fmt.Errorf("planMerge joins no list (%s)", listID)
	}
	return s.bridgePlan(orgID, contact.Holding{Found: true, Contact: cur.contact()}, inputOf(in), src)
}

// bridgePlan decides the upsert of in under h (contact.Upsert) and builds
// its write items.
func (s *Store) bridgePlan(orgID string, h contact.Holding, in contact.Input, src gifting.Source) (contactPlan, error) {
	p, err := contact.Upsert(h, orgID, in, contact.Source(src), "", s.Now())
	if err != nil {
		return contactPlan{contact: bridgeOf(p.Contact)}, err
	}
	items, _, err := s.planItems(orgID, p)
	return contactPlan{contact: bridgeOf(p.Contact), items: items}, err
}

// contactItem is the stored form of c as the next version of cur (the
// launch bills the item a campaign's update leaves with it).
func (s *Store) contactItem(orgID string, cur storedContact, c gifting.Contact) (item, error) {
	cc := fromBridge(c)
	cc.Stored = contact.Stored{Version: cur.Ver, Place: cur.LSK, Holder: cur.Holder}
	return contactAttrs(orgID, cc)
}

// ContactsByID returns the live contacts of org with the given ids, in the
// order of ids; missing and deleted ones are skipped (Contacts).
func (s *Store) ContactsByID(ctx context.Context, orgID string, ids []string) ([]gifting.Contact, error) {
	contacts, err := s.Contacts(ctx, orgID, ids)
	return mapSlice(contacts, bridgeOf), err
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
func (c storedContact) bridge() gifting.Contact { return bridgeOf(c.contact()) }

// inputOf is add-recipient's contact input as the slice takes it.
func inputOf(in gifting.ContactInput) contact.Input {
	ci := contact.Input{
		MailID: in.MailID, FirstName: in.FirstName, LastName: in.LastName, FullName: in.FullName,
		CompanyName: in.CompanyName, JobTitle: in.JobTitle, PhoneNumber: in.PhoneNumber, LinkedinURL: in.LinkedinURL,
		ProfileImage: in.ProfileImage, Tags: in.Tags, Address: contact.Address(in.Address),
	}
	if in.Campaign != nil {
		cc := contact.Campaign(*in.Campaign)
		ci.Campaign = &cc
	}
	return ci
}

// bridgeOf is c in gifting's shape.
func bridgeOf(c contact.Contact) gifting.Contact {
	return gifting.Contact{
		ContactID: c.ContactID, OrganizationID: c.OrganizationID, MailID: c.MailID, IsDeleted: c.IsDeleted,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, ListIDs: c.ListIDs, PhoneNumber: c.PhoneNumber,
		FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName, JobTitle: c.JobTitle,
		CompanyName: c.CompanyName, CompanyID: c.CompanyID, LinkedinURL: c.LinkedinURL, ProfileImage: c.ProfileImage,
		Notes: c.Notes, Address: gifting.Address(c.Address), Usage: gifting.Usage(c.Usage),
		Tags:      mapSlice(c.Tags, func(t contact.Tag) gifting.Tag { return gifting.Tag(t) }),
		Sources:   mapSlice(c.Sources, func(s contact.Source) gifting.Source { return gifting.Source(s) }),
		Campaigns: mapSlice(c.Campaigns, func(cc contact.Campaign) gifting.ContactCampaign { return gifting.ContactCampaign(cc) }),
		Emails: mapSlice(c.Emails, func(e contact.EmailEntry) gifting.EmailEntry {
			return gifting.EmailEntry{Email: e.Email, IsPrimary: e.IsPrimary, IsVerified: e.IsVerified,
				Source: gifting.SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
		Addresses: mapSlice(c.Addresses, func(e contact.AddressEntry) gifting.AddressEntry {
			return gifting.AddressEntry{Address: gifting.Address(e.Address), Type: e.Type, IsPrimary: e.IsPrimary,
				IsVerified: e.IsVerified, Source: gifting.SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
	}
}

// fromBridge is a contact in gifting's shape as the slice's.
func fromBridge(c gifting.Contact) contact.Contact {
	return contact.Contact{
		ContactID: c.ContactID, OrganizationID: c.OrganizationID, MailID: c.MailID, IsDeleted: c.IsDeleted,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, ListIDs: c.ListIDs, PhoneNumber: c.PhoneNumber,
		FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName, JobTitle: c.JobTitle,
		CompanyName: c.CompanyName, CompanyID: c.CompanyID, LinkedinURL: c.LinkedinURL, ProfileImage: c.ProfileImage,
		Notes: c.Notes, Address: contact.Address(c.Address), Usage: contact.Usage(c.Usage),
		Tags:      mapSlice(c.Tags, func(t gifting.Tag) contact.Tag { return contact.Tag(t) }),
		Sources:   mapSlice(c.Sources, func(s gifting.Source) contact.Source { return contact.Source(s) }),
		Campaigns: mapSlice(c.Campaigns, func(cc gifting.ContactCampaign) contact.Campaign { return contact.Campaign(cc) }),
		Emails: mapSlice(c.Emails, func(e gifting.EmailEntry) contact.EmailEntry {
			return contact.EmailEntry{Email: e.Email, IsPrimary: e.IsPrimary, IsVerified: e.IsVerified,
				Source: contact.SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
		Addresses: mapSlice(c.Addresses, func(e gifting.AddressEntry) contact.AddressEntry {
			return contact.AddressEntry{Address: contact.Address(e.Address), Type: e.Type, IsPrimary: e.IsPrimary,
				IsVerified: e.IsVerified, Source: contact.SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
	}
}
