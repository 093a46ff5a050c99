package event_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/gifting"
)

// events are five events a month apart, the third a webinar, created in
// order (ids e0 to e4).
func events() []event.Event {
	var out []event.Event
	for i := range 5 {
		e := newEvent()
		e.ID, e.Name = fmt.Sprint("e", i), fmt.Sprint("Event ", i)
		e.Status = "draft"
		e.EventDates.Start = time.Date(2026, time.Month(5+i), 1, 9, 0, 0, 0, time.UTC)
		e.CreatedAt = now.Add(time.Duration(i) * time.Minute)
		if i == 2 {
			e.Type, e.Description = "webinar", "Live online"
		}
		out = append(out, e)
	}
	return out
}

func ids(es []event.Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestSelect(t *testing.T) {
	t.Parallel()
	at := func(m time.Month, hour int) *time.Time {
		d := time.Date(2026, m, 1, hour, 0, 0, 0, time.UTC)
		return &d
	}
	page := func(n, limit int) gifting.PageRequest { return gifting.PageRequest{Page: n, Limit: limit} }
	for _, tt := range []struct {
		name      string
		f         event.Filter
		q         gifting.ListQuery
		want      []string
		wantTotal int
	}{
		{"newest first by default", event.Filter{}, gifting.ListQuery{Order: gifting.Desc, Page: page(1, 12)}, []string{"e4", "e3", "e2", "e1", "e0"}, 5},
		{"by type", event.Filter{Type: "webinar"}, gifting.ListQuery{Page: page(1, 12)}, []string{"e2"}, 1},
		{"by status none", event.Filter{Status: "published"}, gifting.ListQuery{Page: page(1, 12)}, []string{}, 0},
		{"start dates within from and to, both inclusive", event.Filter{From: at(6, 9), To: at(8, 9)},
			gifting.ListQuery{SortBy: "startDate", Order: gifting.Asc, Page: page(1, 12)}, []string{"e1", "e2", "e3"}, 3},
		{"search matches every word", event.Filter{}, gifting.ListQuery{Search: "LIVE online", Page: page(1, 12)}, []string{"e2"}, 1},
		{"by name, descending", event.Filter{}, gifting.ListQuery{SortBy: gifting.SortName, Order: gifting.Desc, Page: page(1, 12)},
			[]string{"e4", "e3", "e2", "e1", "e0"}, 5},
		{"ties by id", event.Filter{}, gifting.ListQuery{SortBy: gifting.SortUpdatedAt, Order: gifting.Asc, Page: page(1, 12)},
			[]string{"e0", "e1", "e2", "e3", "e4"}, 5},
		{"the second page", event.Filter{}, gifting.ListQuery{Order: gifting.Asc, Page: page(2, 2)}, []string{"e2", "e3"}, 5},
		{"past the last page", event.Filter{}, gifting.ListQuery{Page: page(4, 2)}, []string{}, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			all := events()
			got, total := event.Select(all, tt.f, tt.q)
			if !slices.Equal(ids(got), tt.want) || total != tt.wantTotal {
				t.Errorf("select = %v of %d, want %v of %d", ids(got), total, tt.want, tt.wantTotal)
			}
			if !slices.Equal(ids(all), []string{"e0", "e1", "e2", "e3", "e4"}) {
				t.Errorf("select reordered its input: %v", ids(all))
			}
		})
	}
}

func TestInCreationOrder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		f    event.Filter
		q    gifting.ListQuery
		want bool
	}{
		{"no filter, no search, createdAt", event.Filter{}, gifting.ListQuery{SortBy: gifting.SortCreatedAt, Order: gifting.Asc}, true},
		{"no sort named", event.Filter{}, gifting.ListQuery{}, true},
		{"a filter", event.Filter{Type: "webinar"}, gifting.ListQuery{}, false},
		{"a search", event.Filter{}, gifting.ListQuery{Search: "x"}, false},
		{"another sort", event.Filter{}, gifting.ListQuery{SortBy: "startDate"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := event.InCreationOrder(tt.f, tt.q); got != tt.want {
				t.Errorf("InCreationOrder = %v, want %v", got, tt.want)
			}
		})
	}
}
