package contact_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestSelectLists: the lists page keeps the lists whose name or
// description holds every word of the search, sorts by the field asked
// (ties by id), and pages.
func TestSelectLists(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lists := []contact.List{
		{ListID: "L1", Name: "beta leads", Description: "from the fair", ContactCount: 5, CreatedAt: at, UpdatedAt: at.Add(5 * time.Hour)},
		{ListID: "L2", Name: "Alpha", Description: "VIP customers", ContactCount: 9, CreatedAt: at.Add(time.Hour), UpdatedAt: at.Add(time.Hour)},
		{ListID: "L3", Name: "gamma", Description: "leads from the web", ContactCount: 5, CreatedAt: at.Add(2 * time.Hour), UpdatedAt: at},
	}
	page := gifting.PageRequest{Page: 1, Limit: 10}
	for _, tt := range []struct {
		name  string
		q     contact.ListQuery
		want  []string
		total int
	}{
		{"newest first", contact.ListQuery{Order: gifting.Desc, Page: page}, []string{"L3", "L2", "L1"}, 3},
		{"by name, case-insensitively", contact.ListQuery{SortBy: "name", Order: gifting.Asc, Page: page}, []string{"L2", "L1", "L3"}, 3},
		{"by count, ties by id", contact.ListQuery{SortBy: "contactCount", Order: gifting.Asc, Page: page}, []string{"L1", "L3", "L2"}, 3},
		{"by updatedAt", contact.ListQuery{SortBy: "updatedAt", Order: gifting.Desc, Page: page}, []string{"L1", "L2", "L3"}, 3},
		{"a search holds every word", contact.ListQuery{Search: "LEADS fair", Page: page}, []string{"L1"}, 1},
		{"a search in the description", contact.ListQuery{Search: "leads", Order: gifting.Desc, Page: page}, []string{"L3", "L1"}, 2},
		{"page 2 of 2", contact.ListQuery{Order: gifting.Asc, Page: gifting.PageRequest{Page: 2, Limit: 2}}, []string{"L3"}, 3},
		{"past the end", contact.ListQuery{Page: gifting.PageRequest{Page: 3, Limit: 2}}, []string{}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, total := contact.SelectLists(lists, tt.q)
			ids := []string{}
			for _, l := range got {
				ids = append(ids, l.ListID)
			}
			if !slices.Equal(ids, tt.want) || total != tt.total {
				t.Errorf("SelectLists = %v of %d; want %v of %d", ids, total, tt.want, tt.total)
			}
		})
	}
	if lists[0].ListID != "L1" || lists[2].ListID != "L3" {
		t.Errorf("SelectLists reordered the lists it was given: %v", lists)
	}
}

// TestSearchTerms: a contacts search looks for each word, lower-cased, the
// first eight of them.
func TestSearchTerms(t *testing.T) {
	t.Parallel()
	if got := contact.SearchTerms("  Ada   LOVELACE "); !slices.Equal(got, []string{"ada", "lovelace"}) {
		t.Errorf("SearchTerms = %v", got)
	}
	if got := contact.SearchTerms(" "); len(got) != 0 {
		t.Errorf("a blank search has terms %v", got)
	}
	var words []string
	for i := range 12 {
		words = append(words, fmt.Sprint("w", i))
	}
	if got := contact.SearchTerms(fmt.Sprint(words)); len(got) != 8 {
		t.Errorf("%d terms of 12 words, want 8", len(got))
	}
}

// TestMembers: a search within a list keeps the matches, in their order,
// that are the list's members.
func TestMembers(t *testing.T) {
	t.Parallel()
	got := contact.Members([]string{"c5", "c1", "c9", "c3"}, []string{"c3", "c9", "c7"})
	if !slices.Equal(got, []string{"c9", "c3"}) {
		t.Errorf("Members = %v, want [c9 c3]", got)
	}
}
