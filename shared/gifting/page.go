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
