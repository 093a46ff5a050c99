package gifting

// Page bounds shared by every list endpoint (docs/api.md, the original
// interface).
const (
	MaxLimit = 100
)

// PageRequest is a 1-based page of a list.
type PageRequest struct {
	Page  int
	Limit int
}

// Offset is the number of items before the page.
func (p PageRequest) Offset() int { return (p.Page - 1) * p.Limit }

// Pagination is the pagination metadata of the original interface
// (docs/api.md).
type Pagination struct {
	Page       int  `json:"page"`
	Limit      int  `json:"limit"`
	Total      int  `json:"total"`
	TotalPages int  `json:"totalPages"`
	HasNext    bool `json:"hasNext"`
	HasPrev    bool `json:"hasPrev"`
}

// NewPagination computes the metadata of page p over total items.
func NewPagination(p PageRequest, total int) Pagination {
	pages := 0
	if p.Limit > 0 {
		pages = (total + p.Limit - 1) / p.Limit
	}
	return Pagination{
		Page:       p.Page,
		Limit:      p.Limit,
		Total:      total,
		TotalPages: pages,
		HasNext:    p.Page < pages,
		HasPrev:    p.Page > 1,
	}
}

// End is the number of items up to and including the page.
func (p PageRequest) End() int { return p.Offset() + p.Limit }

// PageTotal is the total of a list whose page p was read from the list's
// start, in keys, up to one item past the page's end (read of them, at
// most p.End()+1), beside counted, the list's size as a counter keeps it.
// A counter kept apart from the items it counts trails them while the
// work that writes them runs (a launch slice written but not yet counted,
// an import's chunk) and, when that work dies, until it is done again; so
// the total is read from the keys wherever they tell it: when fewer than
// p.End()+1 came back the list ends there and read is its exact size, and
// otherwise an item follows the page and the total is the counter's,
// raised to read when the counter trails. So a page is never shown as the
// last while an item follows it (hasNext and totalPages, NewPagination),
// and the total is exact on the last page; in the middle of a list it may
// trail by what the counter has yet to count.
func PageTotal(p PageRequest, counted, read int) int {
	if read <= p.End() {
		return read
	}
	return max(counted, read)
}

// Window returns the bounds [lo, hi) of page p within n items, clamped.
func (p PageRequest) Window(n int) (lo, hi int) {
	lo = min(p.Offset(), n)
	hi = min(lo+p.Limit, n)
	return lo, hi
}

// SortOrder is asc or desc.
type SortOrder string

// Sort orders.
const (
	Asc  SortOrder = "asc"
	Desc SortOrder = "desc"
)

// FromFarEnd decides whether the start of page p, among total items (an
// exact count; negative when none is known), is found sooner from the far
// end of the list: the page starts after its Offset-th item, which is the
// (total − Offset + 1)-th from the far end. It returns that walk's length
// when it is shorter than the walk from the near end; false when it is
// not, when the page starts past the end, and for page 1 (no walk).
func (p PageRequest) FromFarEnd(total int) (walk int, ok bool) {
	off := p.Offset()
	if off <= 0 || total < 0 || off >= total {
		return 0, false
	}
	walk = total - off + 1
	return walk, walk < off
}
