package audience

import (
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestMemberRead: the default order reads keys up to the page and the
// page's items; page 1 in contactId order reads just the page's items;
// the updatedAt order and deeper contactId pages read their order's keys
// up to the page; a search reads its lead term's entries. An audience
// whose members were written before those entries reads every index
// entry for them instead.
func TestMemberRead(t *testing.T) {
	p1, p2 := gifting.PageRequest{Page: 1, Limit: 10}, gifting.PageRequest{Page: 2, Limit: 10}
	for _, tt := range []struct {
		q             MemberQuery
		want, without MemberRead
	}{
		{MemberQuery{SortBy: "createdAt", Page: p2}, ReadByCreatedAt, ReadByCreatedAt},
		{MemberQuery{Page: p1}, ReadByCreatedAt, ReadByCreatedAt},
		{MemberQuery{SortBy: "createdAt", Search: "ann", Page: p1}, ReadSearch, ReadAll},
		{MemberQuery{SortBy: "createdAt", Search: " .- ", Page: p1}, ReadByCreatedAt, ReadByCreatedAt},
		{MemberQuery{SortBy: "updatedAt", Page: p1}, ReadByKeys, ReadAll},
		{MemberQuery{SortBy: "contactId", Page: p1}, ReadFirstByID, ReadFirstByID},
		{MemberQuery{SortBy: "contactId", Page: p2}, ReadByKeys, ReadAll},
		{MemberQuery{SortBy: "contactId", Search: "ann", Page: p1}, ReadSearch, ReadAll},
	} {
		if got := tt.q.ReadFor(true); got != tt.want {
			t.Errorf("%+v: ReadFor(indexed) = %v, want %v", tt.q, got, tt.want)
		}
		if got := tt.q.ReadFor(false); got != tt.without {
			t.Errorf("%+v: ReadFor(not indexed) = %v, want %v", tt.q, got, tt.without)
		}
	}
}

// TestMemberTerms: a search looks for its first MaxSearchTerms words,
// lower-cased, split where a member's words split.
func TestMemberTerms(t *testing.T) {
	q := MemberQuery{Search: " Ann  SMITH a b c d e f g h "}
	if got := q.Terms(); !slices.Equal(got, []string{"ann", "smith", "a", "b", "c", "d", "e", "f"}) {
		t.Errorf("Terms = %q", got)
	}
	if got := (MemberQuery{Search: "Ann.Lee@Example.com"}).Terms(); !slices.Equal(got, []string{"ann", "lee", "example", "com"}) {
		t.Errorf("an email's Terms = %q", got)
	}
	if got := (MemberQuery{}).Terms(); len(got) != 0 {
		t.Errorf("no search: Terms = %q", got)
	}
}

// TestSelectMembers: the entries of a whole audience sort by the contact's
// createdAt (an entry without one, written before it was kept, first),
// its updatedAt or its id, ties by id, newest first unless asc, and the
// page is cut from them; the total is every entry.
func TestSelectMembers(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 3, 2, h, 0, 0, 0, time.UTC) }
	entries := []MemberEntry{
		{ContactID: "c", CreatedAt: at(1), UpdatedAt: at(9)},
		{ContactID: "a", CreatedAt: at(3), UpdatedAt: at(7)},
		{ContactID: "d"}, // legacy: no createdAt kept
		{ContactID: "b", CreatedAt: at(3), UpdatedAt: at(8)},
	}
	page := func(n, limit int) gifting.PageRequest { return gifting.PageRequest{Page: n, Limit: limit} }
	for _, tt := range []struct {
		name  string
		q     MemberQuery
		want  []string
		total int
	}{
		{"createdAt, newest first", MemberQuery{SortBy: "createdAt", Order: gifting.Desc, Page: page(1, 10)}, []string{"b", "a", "c", "d"}, 4},
		{"createdAt, oldest first", MemberQuery{SortBy: "createdAt", Order: gifting.Asc, Page: page(1, 10)}, []string{"d", "c", "a", "b"}, 4},
		{"updatedAt", MemberQuery{SortBy: "updatedAt", Order: gifting.Desc, Page: page(1, 10)}, []string{"c", "b", "a", "d"}, 4},
		{"contactId", MemberQuery{SortBy: "contactId", Order: gifting.Asc, Page: page(1, 10)}, []string{"a", "b", "c", "d"}, 4},
		{"second page", MemberQuery{SortBy: "contactId", Order: gifting.Asc, Page: page(2, 3)}, []string{"d"}, 4},
		{"past the end", MemberQuery{SortBy: "contactId", Page: page(3, 3)}, []string{}, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, total := SelectMembers(entries, tt.q)
			if !slices.Equal(got, tt.want) || total != tt.total {
				t.Errorf("SelectMembers = %v of %d, want %v of %d", got, total, tt.want, tt.total)
			}
		})
	}
	if entries[0].ContactID != "c" {
		t.Error("SelectMembers sorted the caller's entries")
	}
}

// TestSortedByCreatedAt: keys read in createdAt order serve the page only
// when no legacy entry (one sorted by its item's key) is among them.
func TestSortedByCreatedAt(t *testing.T) {
	if !SortedByCreatedAt([]MemberKey{{ContactID: "a"}, {ContactID: "b"}}) || !SortedByCreatedAt(nil) {
		t.Error("current keys are not in createdAt order")
	}
	if SortedByCreatedAt([]MemberKey{{ContactID: "a"}, {ContactID: "b", Legacy: true}}) {
		t.Error("keys with a legacy entry are taken as sorted")
	}
	if got := ContactIDs([]MemberKey{{ContactID: "a"}, {ContactID: "b", Legacy: true}}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ContactIDs = %v", got)
	}
}

// TestFirstMembersTotal: page 1 in contactId order reads one member past
// the page: fewer say the audience ends there, one more that the total is
// the counted one (or more, while a build's count trails its members).
func TestFirstMembersTotal(t *testing.T) {
	q := MemberQuery{SortBy: "contactId", Page: gifting.PageRequest{Page: 1, Limit: 2}}
	for _, tt := range []struct {
		read       int
		totalMatch int64
		page, want int
	}{
		{3, 10, 2, 10},
		{3, 1, 2, 3},
		{2, 10, 2, 2},
		{0, 5, 0, 0},
	} {
		page, total := FirstMembersTotal(make([]Member, tt.read), q, tt.totalMatch)
		if len(page) != tt.page || total != tt.want {
			t.Errorf("%d read of %d counted: page of %d, total %d; want %d, %d", tt.read, tt.totalMatch, len(page), total, tt.page, tt.want)
		}
	}
}

// TestMemberSearchText: a member is searched by its names, email, company
// and job title, in any case.
func TestMemberSearchText(t *testing.T) {
	m := Member{FirstName: "Ann", LastName: "Lee", FullName: "Ann Lee", MailID: "ann@x.io", CompanyName: "Acme", JobTitle: "CTO", City: "Paris"}
	if got := m.SearchText(); got != "ann lee ann lee ann@x.io acme cto" {
		t.Errorf("SearchText = %q", got)
	}
}
