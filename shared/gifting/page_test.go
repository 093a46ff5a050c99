package gifting

import "testing"

func TestPageTotal(t *testing.T) {
	for _, tt := range []struct {
		name                string
		page, limit         int
		counted, read, want int
	}{
		{"the counter trails, items follow the page: raised past the page", 6, 100, 506, 601, 601},
		{"the counter trails, the page is the last: exact", 10, 100, 506, 907, 907},
		{"the counter ahead (an item gone), the page is the last: exact", 2, 100, 250, 180, 180},
		{"the counter right, items follow: the counter's", 1, 100, 907, 101, 907},
		{"a page past the end: what the keys held", 12, 100, 907, 907, 907},
		{"an empty list", 1, 12, 0, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := PageRequest{Page: tt.page, Limit: tt.limit}
			got := PageTotal(p, tt.counted, tt.read)
			if got != tt.want {
				t.Fatalf("PageTotal = %d, want %d", got, tt.want)
			}
			if more := tt.read > p.End(); more != NewPagination(p, got).HasNext {
				t.Errorf("hasNext %v with an item after the page %v", !more, more)
			}
		})
	}
}

func TestFromFarEnd(t *testing.T) {
	for _, tt := range []struct {
		name               string
		page, limit, total int
		walk               int
		ok                 bool
	}{
		{"the last page of 100,000: its start is 1 from the far end", 1000, 100, 100_000, 101, true},
		{"a partial last page: the tail and its start", 10, 100, 950, 51, true},
		{"just past the middle: shorter from the far end", 6, 100, 998, 499, true},
		{"at the middle: no shorter, from the near end", 6, 100, 1000, 501, false},
		{"the older half's first page of 1,000", 7, 100, 1000, 401, true},
		{"page 1: nothing to walk", 1, 100, 100_000, 0, false},
		{"page 2 of 3", 2, 100, 300, 201, false},
		{"past the end", 12, 100, 1000, 0, false},
		{"at the end exactly", 11, 100, 1000, 0, false},
		{"no total known", 1000, 100, -1, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			walk, ok := PageRequest{Page: tt.page, Limit: tt.limit}.FromFarEnd(tt.total)
			if ok != tt.ok || (ok && walk != tt.walk) {
				t.Fatalf("FromFarEnd(%d) = %d, %v; want %d, %v", tt.total, walk, ok, tt.walk, tt.ok)
			}
		})
	}
}
