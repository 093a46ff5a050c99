package audience

import (
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestSelect: a filtered, searched or sorted list of audiences keeps what
// its filter and search keep, sorts by its field (ties by id) in its
// order, and pages; only the plain creation order is left to storage.
func TestSelect(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 3, 2, h, 0, 0, 0, time.UTC) }
	all := []Audience{
		{ID: "a", Name: "beta", ICPID: "p1", Status: Ready, TotalMatch: 5, CreatedAt: at(1), UpdatedAt: at(5), Tags: []string{"q3"}},
		{ID: "b", Name: "Alpha", ICPID: "p2", Status: Building, TotalMatch: 9, CreatedAt: at(2), UpdatedAt: at(4)},
		{ID: "c", Name: "gamma", ICPID: "p1", Status: Ready, TotalMatch: 5, CreatedAt: at(3), UpdatedAt: at(3), Description: "Q3 push"},
	}
	page := gifting.PageRequest{Page: 1, Limit: 10}
	ids := func(as []Audience) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.ID)
		}
		return out
	}
	for _, tt := range []struct {
		name  string
		f     Filter
		q     gifting.ListQuery
		want  []string
		total int
	}{
		{"newest first", Filter{}, gifting.ListQuery{Order: gifting.Desc, Page: page}, []string{"c", "b", "a"}, 3},
		{"by name, any case", Filter{}, gifting.ListQuery{SortBy: gifting.SortName, Order: gifting.Asc, Page: page}, []string{"b", "a", "c"}, 3},
		{"by updatedAt", Filter{}, gifting.ListQuery{SortBy: gifting.SortUpdatedAt, Order: gifting.Asc, Page: page}, []string{"c", "b", "a"}, 3},
		{"by totalMatch, ties by id", Filter{}, gifting.ListQuery{SortBy: "totalMatch", Order: gifting.Desc, Page: page}, []string{"b", "c", "a"}, 3},
		{"of a persona", Filter{ICPID: "p1"}, gifting.ListQuery{Order: gifting.Asc, Page: page}, []string{"a", "c"}, 2},
		{"of a status", Filter{Status: Building}, gifting.ListQuery{Page: page}, []string{"b"}, 1},
		{"searched in tags and description", Filter{}, gifting.ListQuery{Search: "q3", Order: gifting.Asc, Page: page}, []string{"a", "c"}, 2},
		{"a page", Filter{}, gifting.ListQuery{Order: gifting.Asc, Page: gifting.PageRequest{Page: 2, Limit: 2}}, []string{"c"}, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, total := Select(all, tt.f, tt.q)
			if !slices.Equal(ids(got), tt.want) || total != tt.total {
				t.Errorf("Select = %v of %d, want %v of %d", ids(got), total, tt.want, tt.total)
			}
		})
	}
	if !InCreationOrder(Filter{}, gifting.ListQuery{SortBy: gifting.SortCreatedAt}) || InCreationOrder(Filter{ICPID: "p1"}, gifting.ListQuery{}) ||
		InCreationOrder(Filter{}, gifting.ListQuery{Search: "x"}) {
		t.Error("InCreationOrder")
	}
}

// TestSelectPersonas: personas filter by status and search their name,
// description and tags.
func TestSelectPersonas(t *testing.T) {
	all := []Persona{
		{ID: "p1", Status: "active", Criteria: Criteria{Name: "Buyers", Description: "who buys"}},
		{ID: "p2", Status: "inactive", Criteria: Criteria{Name: "admins"}, Meta: PersonaMeta{Tags: []string{"buyers-adjacent"}}},
		{ID: "p3", Status: "active", Criteria: Criteria{Name: "Cats"}},
	}
	q := gifting.ListQuery{SortBy: gifting.SortName, Order: gifting.Asc, Page: gifting.PageRequest{Page: 1, Limit: 10}}
	got, total := SelectPersonas(all, PersonaFilter{Status: "active"}, q)
	if total != 2 || got[0].ID != "p1" || got[1].ID != "p3" {
		t.Errorf("active by name = %+v (%d)", got, total)
	}
	q.Search = "buyers"
	if got, total := SelectPersonas(all, PersonaFilter{}, q); total != 2 || got[0].ID != "p2" || got[1].ID != "p1" {
		t.Errorf("searched = %+v (%d)", got, total)
	}
	if PersonasInCreationOrder(PersonaFilter{Status: "active"}, gifting.ListQuery{}) || !PersonasInCreationOrder(PersonaFilter{}, gifting.ListQuery{}) {
		t.Error("PersonasInCreationOrder")
	}
}
