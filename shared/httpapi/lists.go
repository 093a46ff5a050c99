package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/gifting"
)

// The enveloped lists (personas, audiences, events) and the answer of a
// DELETE, which several groups share.

// listData is the data of the persona, audience and event lists.
type listData[T any] struct {
	Items      []T                `json:"items"`
	Pagination gifting.Pagination `json:"pagination"`
	// NextCursor starts the next page in the creation order ("" on the
	// last page, and when the list is searched, filtered or sorted
	// otherwise: cursor.go).
	NextCursor string `json:"nextCursor"`
}

// listQuery parses search, sortBy (one of sorts, default createdAt),
// sortOrder (default desc) and the page (default limit 12).
func listQuery(q *query, sorts []string) gifting.ListQuery {
	return gifting.ListQuery{
		Page:   q.page(12),
		Search: q.search(maxSearch),
		SortBy: q.enum("sortBy", gifting.SortCreatedAt, sorts...),
		Order:  q.sortOrder(gifting.Desc),
	}
}

// writeList writes a page of a list in the enveloped style, its
// nextCursor bound to binding.
func writeList[T any](w http.ResponseWriter, message string, items []T, page gifting.PageRequest, total int, binding string) {
	if items == nil {
		items = []T{}
	}
	writeEnvelope(w, http.StatusOK, message, listData[T]{Items: items, Pagination: cursorPagination(page, total),
		NextCursor: nextCursor(page, binding)})
}

// createdBinding is the cursor binding of a list of org's resource in
// creation order, the one order of these lists a key follows.
func createdBinding(org, resource string, lq gifting.ListQuery) string {
	return gifting.Binding(org, resource, string(lq.Order))
}

// deleted is the data of a DELETE's response: the id under the resource's
// own name, and isDeleted.
func deleted(idField, id string) map[string]any {
	return map[string]any{idField: id, "isDeleted": true}
}
