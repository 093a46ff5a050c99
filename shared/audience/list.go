package audience

import (
	"cmp"
	"slices"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// Sort fields of the persona and audience lists, default first.
var (
	PersonaSorts = []string{gifting.SortCreatedAt, gifting.SortUpdatedAt, gifting.SortName}
	Sorts        = []string{gifting.SortCreatedAt, gifting.SortUpdatedAt, gifting.SortName, "totalMatch"}
)

// PersonaFilter selects personas; empty fields do not filter.
type PersonaFilter struct {
	Status string
}

// Filter selects audiences; empty fields do not filter.
type Filter struct {
	Status Status
	ICPID  string
}

// Keeps reports whether f keeps p.
func (f PersonaFilter) Keeps(p Persona) bool { return f.Status == "" || p.Status == f.Status }

// Keeps reports whether f keeps a.
func (f Filter) Keeps(a Audience) bool {
	return (f.Status == "" || a.Status == f.Status) && (f.ICPID == "" || a.ICPID == f.ICPID)
}

// SearchText is what the persona list's search matches: the persona's
// name, description and tags.
func (p Persona) SearchText() string {
	return strings.Join(append([]string{p.Criteria.Name, p.Criteria.Description}, p.Meta.Tags...), "\n")
}

// SearchText is what the audience list's search matches: name,
// description and tags.
func (a Audience) SearchText() string {
	return strings.Join(append([]string{a.Name, a.Description}, a.Tags...), "\n")
}

// PersonasInCreationOrder reports whether a list of personas under f and q
// is every persona in creation order, which storage serves from its
// counter and index a page at a time, without reading the others.
func PersonasInCreationOrder(f PersonaFilter, q gifting.ListQuery) bool {
	return f == PersonaFilter{} && q.DefaultOrder()
}

// InCreationOrder is PersonasInCreationOrder for audiences.
func InCreationOrder(f Filter, q gifting.ListQuery) bool { return f == Filter{} && q.DefaultOrder() }

// SelectPersonas returns the page q asks for of the personas of all that f
// and q's search keep, sorted by q.SortBy (ties by id) in q.Order, and
// how many they keep. Personas are few (tens, at most hundreds, ≤ 20 KB
// each), so a filtered list reads them all and sorts them here.
func SelectPersonas(all []Persona, f PersonaFilter, q gifting.ListQuery) ([]Persona, int) {
	return selectPage(all, q, func(p Persona) bool { return f.Keeps(p) && gifting.MatchesSearch(p.SearchText(), q.Search) },
		func(a, b Persona) int {
			switch q.SortBy {
			case gifting.SortUpdatedAt:
				return a.UpdatedAt.Compare(b.UpdatedAt)
			case gifting.SortName:
				return gifting.CompareText(a.Criteria.Name, b.Criteria.Name)
			}
			return a.CreatedAt.Compare(b.CreatedAt)
		}, func(p Persona) string { return p.ID })
}

// Select is SelectPersonas for audiences (~1 KB each, as few), which sort
// by totalMatch too.
func Select(all []Audience, f Filter, q gifting.ListQuery) ([]Audience, int) {
	return selectPage(all, q, func(a Audience) bool { return f.Keeps(a) && gifting.MatchesSearch(a.SearchText(), q.Search) },
		func(a, b Audience) int {
			switch q.SortBy {
			case gifting.SortUpdatedAt:
				return a.UpdatedAt.Compare(b.UpdatedAt)
			case gifting.SortName:
				return gifting.CompareText(a.Name, b.Name)
			case "totalMatch":
				return cmp.Compare(a.TotalMatch, b.TotalMatch)
			}
			return a.CreatedAt.Compare(b.CreatedAt)
		}, func(a Audience) string { return a.ID })
}

// selectPage keeps the items of all that keep keeps, sorts them by compare
// (ties by id) in q's order and returns q's page of them and how many
// were kept.
func selectPage[T any](all []T, q gifting.ListQuery, keep func(T) bool, compare func(a, b T) int, id func(T) string) ([]T, int) {
	kept := slices.DeleteFunc(slices.Clone(all), func(v T) bool { return !keep(v) })
	slices.SortFunc(kept, func(a, b T) int { return gifting.CompareBy(q.Order, compare(a, b), id(a), id(b)) })
	lo, hi := q.Page.Window(len(kept))
	return kept[lo:hi], len(kept)
}
