package dynamo

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"

	"github.com/giftcampaign/service/shared/gifting"
)

// counterContacts counts the live contacts of an organization.
const counterContacts = "CONTACT"

// contactEntropy makes contact ids monotonic within a millisecond, so the
// contacts of one import are listed newest first in the order they were
// given. Each id still starts from 80 random bits per millisecond, and ids
// are only usable inside their organization.
var (
	contactEntropyMu sync.Mutex
	contactEntropy   = ulid.Monotonic(rand.Reader, 0)
)

// newContactID returns a new ULID for a contact, ordered after every
// contact id this process made before.
func newContactID() string {
	contactEntropyMu.Lock()
	defer contactEntropyMu.Unlock()
	return ulid.MustNew(ulid.Now(), contactEntropy).String()
}

// MaxListsPerContact bounds the lists one contact can belong to, so that
// deleting the contact (which leaves every list in the same transaction)
// fits in one transaction of at most 100 items.
const MaxListsPerContact = 40

// storedContact is a contact item: the record plus its version, which every
// write of the contact is conditioned on.
type storedContact struct {
	gifting.Contact
	Ver int64 `json:"ver"`
}

// emailMarker is the item that makes an email unique within an
// organization: it exists exactly while a live contact has the email.
type emailMarker struct {
	ContactID string `json:"contactId"`
}

// contactItem is the stored form of c at version ver: the record without
// empty values (they cost write units and carry nothing), its keys, and its
// Slim entry (LPK/LSK and the search text).
func (s *Store) contactItem(orgID string, c gifting.Contact, ver int64) (item, error) {
	it, err := marshal(c)
	if err != nil {
		return nil, err
	}
	compact(it)
	it["PK"], it["SK"] = str(orgPK(orgID)), str(contactSK(c.ContactID))
	it["LPK"], it["LSK"] = str(contactsLPK(orgID)), str(contactSK(c.ContactID))
	it["srch"] = str(searchText(c))
	it["ver"] = num(ver)
	return it, nil
}

// searchText is the Slim search attribute: the contact's search text plus
// its LinkedIn URL without scheme, which enrichment matches on.
func searchText(c gifting.Contact) string {
	t := c.SearchText()
	if li := gifting.LinkedinKey(c.LinkedinURL); li != "" {
		t += " " + li
	}
	return t
}

// compact removes empty strings, false booleans, nulls and empty
// collections from a map of attributes, at every depth. Reading the item
// back gives the same record (zero values), after Normalize.
func compact(m item) {
	for k, v := range m {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			if v.Value == "" {
				delete(m, k)
			}
		case *types.AttributeValueMemberBOOL:
			if !v.Value {
				delete(m, k)
			}
		case *types.AttributeValueMemberNULL:
			delete(m, k)
		case *types.AttributeValueMemberM:
			compact(v.Value)
			if len(v.Value) == 0 {
				delete(m, k)
			}
		case *types.AttributeValueMemberL:
			if len(v.Value) == 0 {
				delete(m, k)
			}
			for _, e := range v.Value {
				if em, ok := e.(*types.AttributeValueMemberM); ok {
					compact(em.Value)
				}
			}
		}
	}
}

// decodeContact reads a contact item.
func decodeContact(it item) (storedContact, error) {
	var c storedContact
	if err := unmarshal(it, &c); err != nil {
		return c, err
	}
	c.Normalize()
	return c, nil
}

// contact reads a live contact with its version, or NOT_FOUND.
func (s *Store) contact(ctx context.Context, orgID, contactID string) (storedContact, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: key(orgPK(orgID), contactSK(contactID)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return storedContact{}, fmt.Errorf("get contact: %w", err)
	}
	if out.Item == nil {
		return storedContact{}, gifting.NotFound("contact", contactID)
	}
	return decodeContact(out.Item)
}

// Contact returns a live contact of org, or NOT_FOUND (also for a deleted
// one).
func (s *Store) Contact(ctx context.Context, orgID, contactID string) (gifting.Contact, error) {
	c, err := s.contact(ctx, orgID, contactID)
	return c.Contact, err
}

// ContactsByID returns the live contacts of org with the given ids, in the
// order of ids; missing and deleted ones are skipped. It reads 100 per
// BatchGetItem.
func (s *Store) ContactsByID(ctx context.Context, orgID string, ids []string) ([]gifting.Contact, error) {
	stored, err := s.contactsByID(ctx, orgID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]gifting.Contact, 0, len(ids))
	for _, id := range ids {
		if c, ok := stored[id]; ok {
			out = append(out, c.Contact)
		}
	}
	return out, nil
}

// contactsByID reads contacts by id into a map; missing ones are absent.
func (s *Store) contactsByID(ctx context.Context, orgID string, ids []string) (map[string]storedContact, error) {
	keys := make([]item, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			keys = append(keys, key(orgPK(orgID), contactSK(id)))
		}
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]storedContact, len(items))
	for _, it := range items {
		c, err := decodeContact(it)
		if err != nil {
			return nil, err
		}
		out[c.ContactID] = c
	}
	return out, nil
}

// EachContact calls fn with every live contact of org, newest first, reading
// a page of the partition at a time. It stops at fn's first error and
// returns it.
func (s *Store) EachContact(ctx context.Context, orgID string, fn func(gifting.Contact) error) error {
	p := dynamodb.NewQueryPaginator(s.db, s.contactRange(orgID, false))
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("query contacts: %w", err)
		}
		for _, it := range out.Items {
			c, err := decodeContact(it)
			if err != nil {
				return err
			}
			if err := fn(c.Contact); err != nil {
				return err
			}
		}
	}
	return nil
}

// contactRange is the query of org's live contacts in the table, newest
// first unless forward.
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

// ContactUpsert is a prepared create or merge of one contact: the record as
// it will be, and the transaction items that write it. Put Items into a
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

// PrepareContactUpsert reads the contact that has in's email (if any) and
// returns the transaction items that either create it (contact and email
// marker, both only if absent, and the contacts counter) or merge in into it
// (conditioned on the version read, so a concurrent change cancels the
// transaction instead of being lost). in is validated here; an invalid one
// gives VALIDATION_FAILED.
func (s *Store) PrepareContactUpsert(ctx context.Context, orgID string, in gifting.ContactInput, src gifting.Source) (ContactUpsert, error) {
	if err := in.Validate(); err != nil {
		return ContactUpsert{}, err
	}
	p, err := s.planUpsert(ctx, orgID, in, src, "")
	if err != nil {
		return ContactUpsert{}, err
	}
	u := ContactUpsert{Contact: p.contact, Created: p.status == gifting.BulkCreated, Items: p.items}
	if u.Created {
		u.Items = append(u.Items, s.counterAdd(orgID, counterContacts, 1))
	}
	return u, nil
}

// planUpsert reads the email marker and the contact it names, and plans the
// create or merge of in (validated), joining listID when it is not empty.
func (s *Store) planUpsert(ctx context.Context, orgID string, in gifting.ContactInput, src gifting.Source, listID string) (contactPlan, error) {
	for attempt := 1; ; attempt++ {
		var m emailMarker
		found, err := s.get(ctx, orgPK(orgID), emailSK(in.MailID), &m)
		if err != nil {
			return contactPlan{}, err
		}
		if !found {
			return s.planCreate(orgID, in, src, listID)
		}
		cur, err := s.contact(ctx, orgID, m.ContactID)
		if gifting.ErrorCode(err) == gifting.CodeNotFound && attempt < 3 {
			// The contact was deleted between the two reads: its marker
			// is gone too, so read again.
			continue
		}
		if err != nil {
			return contactPlan{}, err
		}
		return s.planMerge(orgID, cur, in, src, listID)
	}
}

// contactPlan is one contact's part of a write: the record as it will be,
// and its transaction items (without the shared counters).
type contactPlan struct {
	contact gifting.Contact
	status  string
	// joined is the list the contact joins in this write, "" for none.
	joined string
	items  []types.TransactWriteItem
}

// planCreate plans a new contact for in: the contact and its email marker,
// both conditioned on not existing, and the list membership.
func (s *Store) planCreate(orgID string, in gifting.ContactInput, src gifting.Source, listID string) (contactPlan, error) {
	c := gifting.NewContact(newContactID(), orgID, in, src, s.Now())
	p := contactPlan{contact: c, status: gifting.BulkCreated}
	if listID != "" {
		p.contact.ListIDs = append(p.contact.ListIDs, listID)
		p.joined = listID
	}
	it, err := s.contactItem(orgID, p.contact, 1)
	if err != nil {
		return p, err
	}
	marker, err := withKey(emailMarker{ContactID: c.ContactID}, map[string]string{"PK": orgPK(orgID), "SK": emailSK(c.MailID)})
	if err != nil {
		return p, err
	}
	p.items = []types.TransactWriteItem{
		{Put: &types.Put{TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		{Put: &types.Put{TableName: &s.table, Item: marker, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
	}
	if p.joined != "" {
		p.items = append(p.items, s.memberPut(orgID, listID, c.ContactID))
	}
	return p, nil
}

// planMerge plans merging in into the stored contact cur, conditioned on
// cur's version, and joining listID unless the contact is already in it.
func (s *Store) planMerge(orgID string, cur storedContact, in gifting.ContactInput, src gifting.Source, listID string) (contactPlan, error) {
	c := cur.Contact
	c.ListIDs = slices.Clone(c.ListIDs)
	c.Merge(in, src, s.Now())
	p := contactPlan{contact: c, status: gifting.BulkMerged}
	if listID != "" && !c.InList(listID) {
		if len(c.ListIDs) >= MaxListsPerContact {
			return p, gifting.Errorf(gifting.CodeConflict, "the contact is already in %d lists, the most one contact can be in", MaxListsPerContact)
		}
		p.contact.ListIDs = append(p.contact.ListIDs, listID)
		p.joined = listID
	}
	put, err := s.contactPut(orgID, p.contact, cur.Ver)
	if err != nil {
		return p, err
	}
	p.items = []types.TransactWriteItem{put}
	if p.joined != "" {
		p.items = append(p.items, s.memberPut(orgID, listID, c.ContactID))
	}
	return p, nil
}

// contactPut is the transaction item that replaces a contact read at
// version ver, only if it is still at that version.
func (s *Store) contactPut(orgID string, c gifting.Contact, ver int64) (types.TransactWriteItem, error) {
	it, err := s.contactItem(orgID, c, ver+1)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: &s.table, Item: it,
		ConditionExpression:       aws.String("ver = :ver"),
		ExpressionAttributeValues: item{":ver": num(ver)},
	}}, nil
}
