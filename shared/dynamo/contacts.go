package dynamo

import (
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
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

// ordCrockford is the alphabet of ULIDs, in sort order.
const ordCrockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Process-wide state of newContactOrd.
var (
	ordMs  uint64
	ordSeq uint32
)

// newContactOrd returns a contact's creation-ordered key, the last part of
// its Slim sort key: a ULID's time (10 characters, milliseconds) and a
// 4-character sequence within the millisecond, so the contacts one process
// creates order as created (one import lists in the order given). It is in
// every contact's Slim entry, where a full ULID would take 12 bytes more;
// it orders against the ULIDs of older contacts by time.
func newContactOrd() string {
	contactEntropyMu.Lock()
	defer contactEntropyMu.Unlock()
	now := ulid.Now()
	if now > ordMs {
		ordMs, ordSeq = now, 0
	} else {
		ordSeq++
	}
	var u ulid.ULID
	if err := u.SetTime(ordMs); err != nil {
		panic(err) // a time before year 10889 always fits
	}
	seq := []byte{0, 0, 0, 0}
	for i, n := 3, ordSeq; i >= 0; i, n = i-1, n/32 {
		seq[i] = ordCrockford[n%32]
	}
	return u.String()[:10] + string(seq)
}

// MaxListsPerContact bounds the lists one contact can belong to, so that
// deleting the contact (which leaves every list in the same transaction)
// fits in one transaction of at most 100 items.
const MaxListsPerContact = 40

// storedContact is a contact item: the record plus what only storage
// knows of it.
type storedContact struct {
	gifting.Contact
	// Ver is the version every write of the contact is conditioned on.
	Ver int64 `json:"ver"`
	// LSK is the Slim sort key as stored: "<first list|->#<creation
	// key>" (contactLSK), or CONTACT#<id> for a contact written before
	// the first list moved onto the item (`admin migrate` rewrites those):
	// every membership of such a legacy contact is a MEMBER# item.
	LSK string `json:"LSK"`
	// Holder is the id of the contact that has the email whose slot this
	// item is (see slotID); "" when that email is free.
	Holder string `json:"holder"`
	// Drv names the entries left out of the item because they are
	// derivable (see derived): "e" the primary email entry, "a" the first
	// address entry.
	Drv string `json:"drv"`
	// CIDs is the contact's usage.campaignIds as stored: a top-level list,
	// so that a launch can append to it with one conditioned update
	// whether or not the item has any yet (joinCampaign). Items written
	// before hold them in usage.campaignIds, read first.
	CIDs []string `json:"cids"`
}

// legacy reports whether every membership of the contact is a MEMBER#
// item (a contact not yet migrated).
func (c storedContact) legacy() bool {
	return c.LSK == "" || strings.HasPrefix(c.LSK, contactPrefix)
}

// onItem is the list whose membership the contact item itself holds (its
// first list), "" for none.
func (c storedContact) onItem() string {
	if c.legacy() || len(c.ListIDs) == 0 {
		return ""
	}
	return c.ListIDs[0]
}

// ord is the contact's creation-ordered key, as in its Slim sort key (a
// legacy contact's is its ULID id).
func (c storedContact) ord() string {
	if c.legacy() {
		return c.ContactID
	}
	_, o, _ := strings.Cut(c.LSK, "#")
	return o
}

// contactItem is the stored form of c as the next version of cur (cur
// gives the version, the Slim order and the slot holder): the record
// without empty values (they cost write units and carry nothing), without
// what the key or the record itself already says (organizationId, the
// primary email entry and first address entry when they are derivable),
// its keys, and its Slim entry (LPK/LSK and the search text). A typical
// imported contact stays under 1 KB, so a plain put costs one write unit.
func (s *Store) contactItem(orgID string, cur storedContact, c gifting.Contact) (item, error) {
	drv := ""
	if len(c.Emails) > 0 && c.Emails[0] == primaryEmailEntry(c) {
		c.Emails, drv = c.Emails[1:], drv+"e"
	}
	if len(c.Addresses) > 0 && c.Addresses[0] == firstAddressEntry(c) {
		c.Addresses, drv = c.Addresses[1:], drv+"a"
	}
	c.OrganizationID = ""
	cids := c.Usage.CampaignIDs
	c.Usage = gifting.Usage{}
	it, err := marshal(c)
	if err != nil {
		return nil, err
	}
	compact(it)
	if len(cids) > 0 {
		it[contactCampaignIDsAttr] = strList(cids)
	}
	lsk := contactSK(c.ContactID)
	if !cur.legacy() {
		first := ""
		if len(c.ListIDs) > 0 {
			first = c.ListIDs[0]
		}
		lsk = contactLSK(first, cur.ord())
	}
	it["PK"], it["SK"] = str(orgPK(orgID)), str(contactSK(c.ContactID))
	it["LPK"], it["LSK"] = str(contactsLPK(orgID)), str(lsk)
	it["srch"] = str(searchText(c))
	it["ver"] = num(cur.Ver + 1)
	if cur.Holder != "" {
		it["holder"] = str(cur.Holder)
	}
	if drv != "" {
		it["drv"] = str(drv)
	}
	return it, nil
}

// primaryEmailEntry is the email entry a new contact starts with
// (gifting.NewContact): derivable from the record, so not stored.
func primaryEmailEntry(c gifting.Contact) gifting.EmailEntry {
	ref := gifting.SourceRef{Type: firstSourceType(c), AddedAt: c.CreatedAt}
	return gifting.EmailEntry{Email: c.MailID, IsPrimary: true, Source: ref, AddedAt: c.CreatedAt, UpdatedAt: c.CreatedAt}
}

// firstAddressEntry is the address entry a contact created with an address
// starts with (gifting.NewContact): derivable from the record.
func firstAddressEntry(c gifting.Contact) gifting.AddressEntry {
	t := firstSourceType(c)
	if t == "" {
		t = gifting.SourceImport
	}
	return gifting.AddressEntry{Address: c.Address, Type: gifting.AddressTypeShip, IsPrimary: true,
		Source: gifting.SourceRef{Type: t, AddedAt: c.CreatedAt}, AddedAt: c.CreatedAt, UpdatedAt: c.CreatedAt}
}

// firstSourceType is the type of the source that created the contact.
func firstSourceType(c gifting.Contact) string {
	if len(c.Sources) == 0 {
		return ""
	}
	return c.Sources[0].Type
}

// searchText is the Slim search attribute: the contact's search text plus
// its LinkedIn URL as srchLinkedin puts it, which enrichment matches on.
func searchText(c gifting.Contact) string {
	t := c.SearchText()
	if li := srchLinkedin(c.LinkedinURL); li != "" {
		t += " " + li
	}
	return t
}

// srchLinkedin is a LinkedIn URL as the search attribute holds it and
// enrichment looks for it: gifting.LinkedinKey without the host, which
// every such URL shares (the attribute is in every Slim entry). Entries
// written with the host still contain the shorter form.
func srchLinkedin(u string) string {
	return strings.TrimPrefix(gifting.LinkedinKey(u), "linkedin.com")
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

// decodeContact reads a contact item, putting back what contactItem left
// out. An alias item (a slot holding no contact) decodes to an empty
// ContactID: readers skip it.
func decodeContact(it item) (storedContact, error) {
	var c storedContact
	if err := unmarshal(it, &c); err != nil {
		return c, err
	}
	if c.ContactID == "" {
		return c, nil
	}
	if pk := attrS(it, "PK"); pk != "" {
		c.OrganizationID = orgOfPK(pk)
	}
	if strings.Contains(c.Drv, "e") {
		c.Emails = append([]gifting.EmailEntry{primaryEmailEntry(c.Contact)}, c.Emails...)
	}
	if strings.Contains(c.Drv, "a") {
		c.Addresses = append([]gifting.AddressEntry{firstAddressEntry(c.Contact)}, c.Addresses...)
	}
	for _, id := range c.CIDs {
		if !slices.Contains(c.Usage.CampaignIDs, id) {
			c.Usage.CampaignIDs = append(c.Usage.CampaignIDs, id)
		}
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
	c, err := decodeContact(out.Item)
	if err == nil && c.ContactID == "" {
		// Missing, or only the slot of an email.
		err = gifting.NotFound("contact", contactID)
	}
	return c, err
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
		if c.ContactID != "" {
			out[c.ContactID] = c
		}
	}
	return out, nil
}

// EachContact calls fn with every live contact of org, in id order, reading
// a page of the partition at a time. It stops at fn's first error and
// returns it.
func (s *Store) EachContact(ctx context.Context, orgID string, fn func(gifting.Contact) error) error {
	p := dynamodb.NewQueryPaginator(s.db, s.contactRange(orgID, true))
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
			if c.ContactID == "" {
				continue // the slot of an email, no contact
			}
			if err := fn(c.Contact); err != nil {
				return err
			}
		}
	}
	return nil
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
// returns the transaction items that either create it (at the email's
// slot, only if absent; or, when the slot is taken by a contact whose email
// changed, under a new id, claiming the slot) with the contacts counter, or
// merge in into it (conditioned on the version read, so a concurrent change
// cancels the transaction instead of being lost). in is validated here; an
// invalid one gives VALIDATION_FAILED.
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

// planUpsert reads the email's slot and the contact holding it, and plans
// the create or merge of in (validated), joining listID when it is not
// empty.
func (s *Store) planUpsert(ctx context.Context, orgID string, in gifting.ContactInput, src gifting.Source, listID string) (contactPlan, error) {
	for attempt := 1; ; attempt++ {
		got, err := s.batchGet(ctx, slotKeys(orgID, in.MailID))
		if err != nil {
			return contactPlan{}, err
		}
		sl, err := slotOf(orgID, in.MailID, bySortKey(got))
		if err != nil {
			return contactPlan{}, err
		}
		if sl.holder == "" {
			return s.planCreate(orgID, in, src, listID, sl.taken)
		}
		cur := sl.cur
		if cur == nil {
			c, err := s.contact(ctx, orgID, sl.holder)
			if gifting.ErrorCode(err) == gifting.CodeNotFound && attempt < 3 {
				// The contact was deleted between the two reads: its
				// slot is released too, so read again.
				continue
			}
			if err != nil {
				return contactPlan{}, err
			}
			cur = &c
		}
		return s.planMerge(orgID, *cur, in, src, listID)
	}
}

// bySortKey indexes items of one partition by sort key.
func bySortKey(items []item) map[string]item {
	out := make(map[string]item, len(items))
	for _, it := range items {
		out[attrS(it, "SK")] = it
	}
	return out
}

// contactPlan is one contact's part of a write: the record as it will be,
// and its write items (without the shared counters).
type contactPlan struct {
	contact gifting.Contact
	status  string
	// joined is the list the contact joins in this write, "" for none;
	// firstJoined says the membership is the contact's first, held by the
	// contact item itself.
	joined      string
	firstJoined bool
	items       []types.TransactWriteItem
	// insert says items is one put of a new item, only if its key is
	// absent: it can be written in a batch of inserts (insertAll).
	insert bool
}

// planCreate plans a new contact for in, joining listID (its first list,
// held on the item) unless empty. The contact is created at its email's
// slot, conditioned on the slot not existing: one put, no transaction.
// When the slot is taken (by a contact whose email changed since, so the
// email is free), the contact gets a new ULID id and claims the slot in
// the same transaction.
func (s *Store) planCreate(orgID string, in gifting.ContactInput, src gifting.Source, listID string, slotTaken bool) (contactPlan, error) {
	id := slotID(orgID, in.MailID)
	if slotTaken {
		id = newContactID()
	}
	c := gifting.NewContact(id, orgID, in, src, s.Now())
	p := contactPlan{contact: c, status: gifting.BulkCreated}
	if listID != "" {
		p.contact.ListIDs = append(p.contact.ListIDs, listID)
		p.joined, p.firstJoined = listID, true
	}
	var err error
	p.items, err = s.contactCreateItems(orgID, p.contact, slotTaken)
	p.insert = !slotTaken
	return p, err
}

// contactCreateItems are the items that create contact c: one put only if
// absent, at its email's slot, or (slotTaken: the slot is occupied by a
// contact whose email changed since) under its own id, with the claim of
// the slot.
func (s *Store) contactCreateItems(orgID string, c gifting.Contact, slotTaken bool) ([]types.TransactWriteItem, error) {
	form := storedContact{LSK: contactLSK("", newContactOrd())}
	if !slotTaken {
		form.Holder = c.ContactID
	}
	it, err := s.contactItem(orgID, form, c)
	if err != nil {
		return nil, err
	}
	items := []types.TransactWriteItem{{Put: &types.Put{TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")}}}
	if slotTaken {
		items = append(items, s.slotClaim(orgID, c.MailID, c.ContactID))
	}
	return items, nil
}

// slotClaim is the write item that makes contactID the holder of email's
// slot, which exists and is free. The slot's version moves, so a write of
// the contact it is, read before, cannot drop the holder.
func (s *Store) slotClaim(orgID, email, contactID string) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table, Key: key(orgPK(orgID), contactSK(slotID(orgID, email))),
		UpdateExpression:          aws.String("SET holder = :id ADD ver :one"),
		ConditionExpression:       aws.String("attribute_exists(PK) AND attribute_not_exists(holder)"),
		ExpressionAttributeValues: item{":id": str(contactID), ":one": num(1)},
	}}
}

// planMerge plans merging in into the stored contact cur, conditioned on
// cur's version, and joining listID unless the contact is already in it.
func (s *Store) planMerge(orgID string, cur storedContact, in gifting.ContactInput, src gifting.Source, listID string) (contactPlan, error) {
	c := cur.Contact
	if err := c.TagsFit(in); err != nil {
		return contactPlan{contact: c, status: gifting.BulkMerged}, err
	}
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
	put, err := s.contactPut(orgID, cur, p.contact)
	if err != nil {
		return p, err
	}
	p.items = []types.TransactWriteItem{put}
	if p.joined != "" {
		if !cur.legacy() && len(cur.ListIDs) == 0 {
			p.firstJoined = true
		} else {
			p.items = append(p.items, s.memberPut(orgID, listID, c.ContactID))
		}
	}
	return p, nil
}

// contactPut is the write item that replaces the contact cur (as read)
// with c, only if it is still at the version read.
func (s *Store) contactPut(orgID string, cur storedContact, c gifting.Contact) (types.TransactWriteItem, error) {
	it, err := s.contactItem(orgID, cur, c)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName: &s.table, Item: it,
		ConditionExpression:       aws.String("ver = :ver"),
		ExpressionAttributeValues: item{":ver": num(cur.Ver)},
	}}, nil
}
