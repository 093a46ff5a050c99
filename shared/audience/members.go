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
	// Search keeps the members with a word of their names, company or
	// email beginning with each word of it (the first MaxSearchTerms),
	// case-insensitively (search.go).
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

// Terms are the words q's search looks for, lower-cased, split as a
// member's words are (Words).
func (q MemberQuery) Terms() []string {
	terms := Words(q.Search)
	terms = terms[:min(len(terms), MaxSearchTerms)]
	for i, t := range terms {
		terms[i] = cutWord(t)
	}
	return terms
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
	// ReadByKeys: the updatedAt order and the deeper pages in contactId
	// order read the keys of that order's entries up to the page's end
	// (storage keeps one per member in each order, written with it), then
	// the page's items by key.
	ReadByKeys
	// ReadSearch: a search reads the search entries of its lead term's
	// prefix (LeadTerm; each entry carries its member's words and
	// times), keeps those whose words match every term, sorts them here
	// (SelectMembers), then reads the page's items by key: O(members
	// matching the lead term) in small entries, never the audience.
	ReadSearch
	// ReadAll: an audience whose members were written before their order
	// and search entries existed (not Indexed: built before, not rebuilt
	// or migrated since) is served from every member's index entry (keys,
	// search text, the contact's times), sorted here, then the page's
	// items by key: O(audience) in index entries, never in items.
	ReadAll
)

// Read is how q's page is read from an audience whose members have their
// order and search entries (ReadFor says how without them).
func (q MemberQuery) Read() MemberRead {
	switch {
	case len(q.Terms()) > 0:
		return ReadSearch
	case q.SortBy == "updatedAt":
		return ReadByKeys
	case q.SortBy == "contactId" && q.Page.Offset() == 0:
		return ReadFirstByID
	case q.SortBy == "contactId":
		return ReadByKeys
	}
	return ReadByCreatedAt
}

// ReadFor is how q's page is read from an audience whose members have
// their order and search entries when indexed, from one whose members
// were written before them otherwise (every entry, ReadAll).
func (q MemberQuery) ReadFor(indexed bool) MemberRead {
	read := q.Read()
	if !indexed && (read == ReadByKeys || read == ReadSearch) {
		return ReadAll
	}
	return read
}

// MemberKey is a member's entry in one of the orders of MemberSorts, keys
// only.
type MemberKey struct {
	ContactID string
	// Legacy: the entry was written before the index sorted members by
	// createdAt (an audience built then and not rebuilt since); its sort
	// key is its item's, which sorts before every createdAt key: oldest
	// first such entries come first, newest first after every newer one.
	Legacy bool
	// Position is the entry's place in the createdAt order as a cursor
	// holds it (gifting.Resume; storage's own keys).
	Position string
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

// MemberEntry is a member's index or search entry as ReadAll and
// ReadSearch read it: what the sorts compare, and the words a search
// matches. A legacy entry has no CreatedAt (the zero time): it comes
// first oldest first.
type MemberEntry struct {
	ContactID            string
	CreatedAt, UpdatedAt time.Time
	// Words are the member's words (MemberWords) in a search entry, or
	// its index entry's search text split into words (Words).
	Words []string
}

// Matching keeps the entries whose words match every term (all of them
// when there is none), each contact once: a member has a search entry
// for each of its words that begins with the lead term.
func Matching(entries []MemberEntry, terms []string) []MemberEntry {
	seen := make(map[string]bool, len(entries))
	out := entries[:0:0]
	for _, e := range entries {
		if !seen[e.ContactID] && MatchesWords(e.Words, terms) {
			seen[e.ContactID] = true
			out = append(out, e)
		}
	}
	return out
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
