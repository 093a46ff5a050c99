package dynamo

import (
	"crypto/rand"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"

	"github.com/giftcampaign/service/shared/contact"
)

// The contact slice's items: a contact (CONTACT#<id>) and its parts, and
// how one is read back into the slice's type. The attributes keep the
// names they had when the API's type was stored as it was
// (docs/data-model.md); the tags name attributes, as the store's marshal
// reads them.

// contactRecord is a contact's record as stored.
type contactRecord struct {
	ContactID      string                `json:"contactId"`
	OrganizationID string                `json:"organizationId"`
	MailID         string                `json:"mailId"`
	IsDeleted      bool                  `json:"isDeleted"`
	CreatedAt      time.Time             `json:"createdAt"`
	UpdatedAt      time.Time             `json:"updatedAt"`
	ListIDs        []string              `json:"listIds"`
	PhoneNumber    string                `json:"phoneNumber"`
	FirstName      string                `json:"firstName"`
	LastName       string                `json:"lastName"`
	FullName       string                `json:"fullName"`
	JobTitle       string                `json:"jobTitle"`
	CompanyName    string                `json:"companyName"`
	CompanyID      string                `json:"companyId"`
	LinkedinURL    string                `json:"linkedinUrl"`
	ProfileImage   string                `json:"profileImage"`
	Locale         string                `json:"locale,omitempty"`
	Notes          string                `json:"notes"`
	Tags           []tagItem             `json:"tags"`
	Address        addressItem           `json:"address"`
	Emails         []emailEntryItem      `json:"emails"`
	Addresses      []addressEntryItem    `json:"addresses"`
	Sources        []sourceItem          `json:"sources"`
	Usage          usageItem             `json:"usage"`
	Campaigns      []contactCampaignItem `json:"campaigns"`
}

type tagItem struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

type addressItem struct {
	Line1   string `json:"line1"`
	Line2   string `json:"line2,omitempty"`
	City    string `json:"city"`
	State   string `json:"state"`
	Country string `json:"country"`
	Zip     string `json:"zip"`
}

type sourceRefItem struct {
	Type    string    `json:"type"`
	AddedAt time.Time `json:"addedAt"`
}

type emailEntryItem struct {
	Email      string        `json:"email"`
	IsPrimary  bool          `json:"isPrimary"`
	IsVerified bool          `json:"isVerified"`
	Source     sourceRefItem `json:"source"`
	AddedAt    time.Time     `json:"addedAt"`
	UpdatedAt  time.Time     `json:"updatedAt"`
}

// addressEntryItem holds the address's fields at its own level, as the
// embedded address of the API's type put them.
type addressEntryItem struct {
	addressItem
	Type       string        `json:"type"`
	IsPrimary  bool          `json:"isPrimary"`
	IsVerified bool          `json:"isVerified"`
	Source     sourceRefItem `json:"source"`
	AddedAt    time.Time     `json:"addedAt"`
	UpdatedAt  time.Time     `json:"updatedAt"`
}

type sourceItem struct {
	Type     string    `json:"type"`
	Provider string    `json:"provider"`
	AddedAt  time.Time `json:"addedAt"`
}

type usageItem struct {
	CampaignIDs []string `json:"campaignIds"`
}

type contactCampaignItem struct {
	CampaignID   string `json:"campaignId"`
	CampaignName string `json:"campaignName"`
	Status       string `json:"status"`
}

// storedContact is a contact item as read: the record, and what only
// storage knows of it (the slice sees the last three as contact.Stored).
type storedContact struct {
	contactRecord
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
	// derivable (see contactAttrs): "e" the primary email entry, "a" the
	// first address entry.
	Drv string `json:"drv"`
	// CIDs is the contact's usage.campaignIds as stored: a top-level list,
	// so that a launch can append to it with one conditioned update
	// whether or not the item has any yet (joinCampaign). Items written
	// before hold them in usage.campaignIds, read first.
	CIDs []string `json:"cids"`
	// Sx names the contact's search entries (searchOf), "" for a contact
	// written before they were kept (`admin migrate` writes them).
	Sx string `json:"sx"`
	// Srch is the contact's search text: its words when its entries were
	// written (contact.WordsText), which name its word entries (sx's
	// wordEntries).
	Srch string `json:"srch,omitempty"`
}

// legacyPlace reports whether a contact whose Slim sort key is lsk keeps
// every membership in a MEMBER# item (a contact not yet migrated).
func legacyPlace(lsk string) bool { return lsk == "" || strings.HasPrefix(lsk, contactPrefix) }

// legacy reports whether every membership of the contact is a MEMBER#
// item.
func (c storedContact) legacy() bool { return legacyPlace(c.LSK) }

// onItem is the list whose membership the item of c, as read, holds (its
// first list), "" for none.
func onItem(c contact.Contact) string {
	if legacyPlace(c.Stored.Place) || len(c.ListIDs) == 0 {
		return ""
	}
	return c.ListIDs[0]
}

// ordOf is the creation-ordered key of the contact id kept at Slim sort
// key lsk (a legacy contact's is its ULID id).
func ordOf(lsk, id string) string {
	if legacyPlace(lsk) {
		return id
	}
	_, o, _ := strings.Cut(lsk, "#")
	return o
}

// contact is the item as the slice sees it.
func (c storedContact) contact() contact.Contact {
	out := c.contactRecord.contact()
	out.Stored = contact.Stored{Version: c.Ver, Place: c.LSK, Holder: c.Holder, Search: c.Sx, Words: c.Srch}
	return out
}

func (r contactRecord) contact() contact.Contact {
	c := contact.Contact{
		ContactID: r.ContactID, OrganizationID: r.OrganizationID, MailID: r.MailID, IsDeleted: r.IsDeleted,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ListIDs: r.ListIDs, PhoneNumber: r.PhoneNumber,
		FirstName: r.FirstName, LastName: r.LastName, FullName: r.FullName, JobTitle: r.JobTitle,
		CompanyName: r.CompanyName, CompanyID: r.CompanyID, LinkedinURL: r.LinkedinURL, ProfileImage: r.ProfileImage, Locale: r.Locale,
		Notes: r.Notes, Address: contact.Address(r.Address), Usage: contact.Usage(r.Usage),
		Tags:    mapSlice(r.Tags, func(t tagItem) contact.Tag { return contact.Tag(t) }),
		Sources: mapSlice(r.Sources, func(s sourceItem) contact.Source { return contact.Source(s) }),
		Campaigns: mapSlice(r.Campaigns, func(cc contactCampaignItem) contact.Campaign {
			return contact.Campaign(cc)
		}),
		Emails: mapSlice(r.Emails, func(e emailEntryItem) contact.EmailEntry {
			return contact.EmailEntry{Email: e.Email, IsPrimary: e.IsPrimary, IsVerified: e.IsVerified,
				Source: contact.SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
		Addresses: mapSlice(r.Addresses, func(e addressEntryItem) contact.AddressEntry {
			return contact.AddressEntry{Address: contact.Address(e.addressItem), Type: e.Type, IsPrimary: e.IsPrimary,
				IsVerified: e.IsVerified, Source: contact.SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
	}
	c.Normalize()
	return c
}

// recordOf is the record of c as stored.
func recordOf(c contact.Contact) contactRecord {
	return contactRecord{
		ContactID: c.ContactID, OrganizationID: c.OrganizationID, MailID: c.MailID, IsDeleted: c.IsDeleted,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, ListIDs: c.ListIDs, PhoneNumber: c.PhoneNumber,
		FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName, JobTitle: c.JobTitle,
		CompanyName: c.CompanyName, CompanyID: c.CompanyID, LinkedinURL: c.LinkedinURL, ProfileImage: c.ProfileImage, Locale: c.Locale,
		Notes: c.Notes, Address: addressItem(c.Address), Usage: usageItem(c.Usage),
		Tags:      mapSlice(c.Tags, func(t contact.Tag) tagItem { return tagItem(t) }),
		Sources:   mapSlice(c.Sources, func(s contact.Source) sourceItem { return sourceItem(s) }),
		Campaigns: mapSlice(c.Campaigns, func(cc contact.Campaign) contactCampaignItem { return contactCampaignItem(cc) }),
		Emails: mapSlice(c.Emails, func(e contact.EmailEntry) emailEntryItem {
			return emailEntryItem{Email: e.Email, IsPrimary: e.IsPrimary, IsVerified: e.IsVerified,
				Source: sourceRefItem(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
		Addresses: mapSlice(c.Addresses, func(e contact.AddressEntry) addressEntryItem {
			return addressEntryItem{addressItem: addressItem(e.Address), Type: e.Type, IsPrimary: e.IsPrimary,
				IsVerified: e.IsVerified, Source: sourceRefItem(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
	}
}

// mapSlice is in with f applied to each element; nil stays nil.
func mapSlice[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// contactAttrs is the stored form of c, as the next version of the item
// c.Stored says was read (its version, its Slim order, its slot holder):
// the record without empty values (they cost write units and carry
// nothing), without what the key or the record itself already says
// (organizationId, the primary email entry and first address entry when
// they are derivable), its keys, and its Slim entry (LPK/LSK and the
// search text). A typical imported contact stays under 1 KB, so a plain
// put costs one write unit.
func contactAttrs(orgID string, c contact.Contact) (item, error) {
	rec := recordOf(c)
	drv := ""
	if len(rec.Emails) > 0 && rec.Emails[0] == primaryEmailEntry(rec) {
		rec.Emails, drv = rec.Emails[1:], drv+"e"
	}
	if len(rec.Addresses) > 0 && rec.Addresses[0] == firstAddressEntry(rec) {
		rec.Addresses, drv = rec.Addresses[1:], drv+"a"
	}
	rec.OrganizationID = ""
	cids := rec.Usage.CampaignIDs
	rec.Usage = usageItem{}
	it, err := marshal(rec)
	if err != nil {
		return nil, err
	}
	compact(it)
	if len(cids) > 0 {
		it[contactCampaignIDsAttr] = strList(cids)
	}
	lsk := contactSK(c.ContactID)
	if place := c.Stored.Place; !legacyPlace(place) {
		first := ""
		if len(c.ListIDs) > 0 {
			first = c.ListIDs[0]
		}
		lsk = contactLSK(first, ordOf(place, c.ContactID))
	}
	it["PK"], it["SK"] = str(orgPK(orgID)), str(contactSK(c.ContactID))
	it["LPK"], it["LSK"] = str(contactsLPK(orgID)), str(lsk)
	// The Slim search text is the contact's words (contact.WordsText),
	// which a search of short terms only filters the whole index on; the
	// item names its search entries (contacts_search.go).
	it["srch"] = str(contact.WordsText(c.SearchWords()))
	if sx := searchOf(orgID, c, lsk).names; sx != "" {
		it["sx"] = str(sx)
	}
	it["ver"] = num(c.Stored.Version + 1)
	if c.Stored.Holder != "" {
		it["holder"] = str(c.Stored.Holder)
	}
	if drv != "" {
		it["drv"] = str(drv)
	}
	return it, nil
}

// primaryEmailEntry is the email entry a new contact starts with
// (contact.New): derivable from the record, so not stored.
func primaryEmailEntry(r contactRecord) emailEntryItem {
	ref := sourceRefItem{Type: firstSourceType(r), AddedAt: r.CreatedAt}
	return emailEntryItem{Email: r.MailID, IsPrimary: true, Source: ref, AddedAt: r.CreatedAt, UpdatedAt: r.CreatedAt}
}

// firstAddressEntry is the address entry a contact created with an address
// starts with (contact.New): derivable from the record.
func firstAddressEntry(r contactRecord) addressEntryItem {
	t := firstSourceType(r)
	if t == "" {
		t = contact.SourceImport
	}
	return addressEntryItem{addressItem: r.Address, Type: contact.AddressTypeShip, IsPrimary: true,
		Source: sourceRefItem{Type: t, AddedAt: r.CreatedAt}, AddedAt: r.CreatedAt, UpdatedAt: r.CreatedAt}
}

// firstSourceType is the type of the source that created the contact.
func firstSourceType(r contactRecord) string {
	if len(r.Sources) == 0 {
		return ""
	}
	return r.Sources[0].Type
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

// decodeContact reads a contact item, putting back what contactAttrs left
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
		c.Emails = append([]emailEntryItem{primaryEmailEntry(c.contactRecord)}, c.Emails...)
	}
	if strings.Contains(c.Drv, "a") {
		c.Addresses = append([]addressEntryItem{firstAddressEntry(c.contactRecord)}, c.Addresses...)
	}
	for _, id := range c.CIDs {
		if !slices.Contains(c.Usage.CampaignIDs, id) {
			c.Usage.CampaignIDs = append(c.Usage.CampaignIDs, id)
		}
	}
	return c, nil
}

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
