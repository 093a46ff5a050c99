package httpapi

import (
	"github.com/giftcampaign/service/shared/gifting"
)

// Cursor paging (docs/api.md, "Paging"): every list whose order follows a
// key answers a nextCursor beside its pagination, and takes it back as
// cursor to read the next page right after the previous page's last item.
// The encoding is gifting.CursorAt's, bound (gifting.Binding) to the
// organization, the list and the parameters that decide its items and
// order; the store reads the position it holds.

// cursorPage reads the cursor parameter of a list page: it gives page a
// Resume (so the store reports the next page's position) and, for a
// cursor sent, its position. keyed is whether the list, as asked, is in an
// order a key follows: a cursor sent to one that is not (a free-text
// search, a sort made in memory) is a problem, as is a cursor made under
// another binding, a malformed one, and one sent with a page other than 1.
func (q *query) cursorPage(page *gifting.PageRequest, binding string, keyed bool) {
	cursor, sent := q.typed("cursor")
	switch {
	case !sent:
		if keyed {
			page.Resume = &gifting.Resume{}
		}
		return
	case !keyed:
		q.problems.Add("cursor", "is not taken by this list as asked: its order follows no key (a search, a filter or a sort made in memory); page by number")
		return
	case page.Page != 1:
		q.problems.Add("cursor", "must not be sent with a page other than 1: the cursor says where the page starts")
		return
	}
	at, ok := gifting.ResumeAt(cursor, binding)
	if !ok {
		q.problems.Add("cursor", "must be a nextCursor this list returned for the same organization, filters and sort")
		return
	}
	page.Resume = &gifting.Resume{After: at}
}

// nextCursor is the nextCursor of page, read under binding: "" on the last
// page and for a list with no cursor.
func nextCursor(page gifting.PageRequest, binding string) string {
	if page.Resume == nil {
		return ""
	}
	return gifting.CursorAt(page.Resume.Next, binding)
}

// cursorPagination is the pagination of page over total items: a page read
// by cursor has no number of its own (it is asked as page 1), so whether
// one follows is whether the store found an item after it, and one comes
// before it.
func cursorPagination(page gifting.PageRequest, total int) gifting.Pagination {
	p := gifting.NewPagination(page, total)
	if page.Resume.Cursor() {
		p.HasNext, p.HasPrev = page.Resume.Next != "", true
	}
	return p
}
