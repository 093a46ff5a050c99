package event

import (
	"slices"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Sorts are the sortBy values of the event list, default first.
var Sorts = []string{gifting.SortCreatedAt, gifting.SortUpdatedAt, gifting.SortName, "startDate"}

// Filter selects events; empty fields do not filter. From and To bound
// the start date, both inclusive.
type Filter struct {
	Status, Type string
	From, To     *time.Time
}

// Empty reports whether f keeps every event.
func (f Filter) Empty() bool { return f == Filter{} }

// Keeps reports whether f keeps e.
func (f Filter) Keeps(e Event) bool {
	return (f.Status == "" || e.Status == f.Status) && (f.Type == "" || e.Type == f.Type) &&
		(f.From == nil || !e.EventDates.Start.Before(*f.From)) && (f.To == nil || !e.EventDates.Start.After(*f.To))
}

// SearchText is what the event list's search matches: name, description,
// host, venue and tags.
func (e Event) SearchText() string {
	return strings.Join(append([]string{e.Name, e.Description, e.Host, e.Location.VenueName}, e.Tags...), "\n")
}

// InCreationOrder reports whether a list under f and q is every event in
// creation order, which storage serves from its counter and index, a page
// at a time, without reading the others.
func InCreationOrder(f Filter, q gifting.ListQuery) bool { return f.Empty() && q.DefaultOrder() }

// Select returns the page q asks for of the events of all that f and q's
// search keep, sorted by q.SortBy (ties by id) in q.Order, and how many
// they keep.
func Select(all []Event, f Filter, q gifting.ListQuery) ([]Event, int) {
	kept := slices.DeleteFunc(slices.Clone(all), func(e Event) bool {
		return !f.Keeps(e) || !gifting.MatchesSearch(e.SearchText(), q.Search)
	})
	slices.SortFunc(kept, func(a, b Event) int {
		return gifting.CompareBy(q.Order, compare(q.SortBy, a, b), a.ID, b.ID)
	})
	lo, hi := q.Page.Window(len(kept))
	return kept[lo:hi], len(kept)
}

// compare orders two events by sortBy, ascending.
func compare(sortBy string, a, b Event) int {
	switch sortBy {
	case gifting.SortUpdatedAt:
		return a.UpdatedAt.Compare(b.UpdatedAt)
	case gifting.SortName:
		return gifting.CompareText(a.Name, b.Name)
	case "startDate":
		return a.EventDates.Start.Compare(b.EventDates.Start)
	}
	return a.CreatedAt.Compare(b.CreatedAt)
}
