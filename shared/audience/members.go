package audience

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// MemberSorts are the sortBy values of an audience's members, default
// first; ties are broken by contactId.
var MemberSorts = []string{"createdAt", "updatedAt", "contactId"}

// MemberQuery selects a page of an audience's members.
type MemberQuery struct {
	// Search keeps the members whose names, email, company or job title
	// contain every word of it (the first MaxSearchTerms),
	// case-insensitively.
	Search string
	// SortBy is one of MemberSorts: the contact's createdAt or updatedAt,
	// or its id.
	SortBy string
	Order  gifting.SortOrder
	Page   gifting.PageRequest
}

// MaxSearchTerms bounds the words of a search that are looked for: each
// is a condition of the index query's filter.
const MaxSearchTerms = 8

// Terms are the words q's search looks for, lower-cased.
func (q MemberQuery) Terms() []string {
	terms := strings.Fields(strings.ToLower(q.Search))
	return terms[:min(len(terms), MaxSearchTerms)]
}

// SearchText is what a search over an audience's members matches: the
// lower-cased names, email, company and job title. Storage keeps it with
// the member's index entry.
func (m Member) SearchText() string {
	return strings.ToLower(strings.Join([]string{m.FirstName, m.LastName, m.FullName, m.MailID, m.CompanyName, m.JobTitle}, " "))
}

// MemberRead is how a page of members is read.
type MemberRead int

const (
	// ReadByCreatedAt: the default order reads the index entries in the
	// contacts' createdAt order up to the page's end (keys only), then
	// the page's items and the audience by key: O(page) in items.
	ReadByCreatedAt MemberRead = iota
	// ReadFirstByID: page 1 in contactId order is one query of the
	// members' items, in their key order.
	ReadFirstByID
	// ReadAll: a search, the updatedAt order and the deeper pages in
	// contactId order read every index entry of the audience (keys,
	// search text, the contact's times), sorted here (SelectMembers),
	// then the page's items by key: O(audience) in index entries, never
	// in items. Contact ids are derived from the email, so the contactId
	// order is not the creation order.
	ReadAll
)

// Read is how q's page is read.
func (q MemberQuery) Read() MemberRead {
	switch {
	case len(q.Terms()) > 0 || q.SortBy == "updatedAt":
		return ReadAll
	case q.SortBy == "contactId" && q.Page.Offset() == 0:
		return ReadFirstByID
	case q.SortBy == "contactId":
		return ReadAll
	}
	return ReadByCreatedAt
}

// MemberKey is a member's index entry in the createdAt order, keys only.
type MemberKey struct {
	ContactID string
	// Legacy: the entry was written before the index sorted members by
	// createdAt (an audience built then and not rebuilt since); its sort
	// key is its item's, which sorts before every createdAt key: oldest
	// first such entries come first, newest first after every newer one.
	Legacy bool
}

// SortedByCreatedAt reports whether keys, read in createdAt order, are in
// it: an audience whose keys show a legacy entry is read whole instead
// (ReadAll), since its legacy entries are out of place.
func SortedByCreatedAt(keys []MemberKey) bool {
	return !slices.ContainsFunc(keys, func(k MemberKey) bool { return k.Legacy })
}

// ContactIDs are the contact ids of keys.
func ContactIDs(keys []MemberKey) []string {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ContactID
	}
	return ids
}

// MemberEntry is a member's index entry as ReadAll reads it: what the
// sorts compare. A legacy entry has no CreatedAt (the zero time): it
// comes first oldest first.
type MemberEntry struct {
	ContactID            string
	CreatedAt, UpdatedAt time.Time
}

// SelectMembers returns the contact ids of q's page of entries, sorted by
// q.SortBy (ties by contactId) in q.Order, and how many entries there are.
func SelectMembers(entries []MemberEntry, q MemberQuery) ([]string, int) {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b MemberEntry) int {
		by := 0
		switch q.SortBy {
		case "updatedAt":
			by = a.UpdatedAt.Compare(b.UpdatedAt)
		case "contactId":
		default:
			by = a.CreatedAt.Compare(b.CreatedAt)
		}
		return cmp.Or(by, cmp.Compare(a.ContactID, b.ContactID))
	})
	if q.Order != gifting.Asc {
		slices.Reverse(entries)
	}
	lo, hi := q.Page.Window(len(entries))
	ids := make([]string, 0, hi-lo)
	for _, e := range entries[lo:hi] {
		ids = append(ids, e.ContactID)
	}
	return ids, len(entries)
}

// FirstMembersTotal is the page and total of ReadFirstByID, from the
// members read (at most the page's limit and one more, which says whether
// a member follows) and the audience's totalMatch.
func FirstMembersTotal(read []Member, q MemberQuery, totalMatch int64) ([]Member, int) {
	return read[:min(len(read), q.Page.Limit)], gifting.PageTotal(q.Page, int(totalMatch), len(read))
}
