package gifting

import (
	"cmp"
	"strings"
)

// ListQuery is what every list of personas, audiences and events takes
// besides its own filter: free-text search, sort and page.
type ListQuery struct {
	// Search keeps the items whose text (see each resource's SearchText)
	// contains every word of it, case-insensitively.
	Search string
	// SortBy is one of the resource's sorts; "" means createdAt.
	SortBy string
	Order  SortOrder
	Page   PageRequest
}

// DefaultOrder reports whether q lists in creation order with no search:
// the order a list can serve from its counter and the Slim index, O(page).
func (q ListQuery) DefaultOrder() bool {
	return q.Search == "" && (q.SortBy == "" || q.SortBy == SortCreatedAt)
}

// Sort fields shared by the lists.
const (
	SortCreatedAt = "createdAt"
	SortUpdatedAt = "updatedAt"
	SortName      = "name"
)

// MatchesSearch reports whether text holds every word of search,
// case-insensitively; an empty search matches everything.
func MatchesSearch(text, search string) bool {
	text = strings.ToLower(text)
	for _, w := range strings.Fields(strings.ToLower(search)) {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// CompareBy orders two items of a list by sortBy (named fields through
// field, createdAt and updatedAt through the times), ties by id, in order.
func CompareBy(order SortOrder, by int, idA, idB string) int {
	if by == 0 {
		by = cmp.Compare(idA, idB)
	}
	if order == Desc {
		return -by
	}
	return by
}

// CompareText orders two names case-insensitively.
func CompareText(a, b string) int { return cmp.Compare(strings.ToLower(a), strings.ToLower(b)) }
