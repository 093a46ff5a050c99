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
