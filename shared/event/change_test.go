package event_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/gifting"
)

var now = time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)

// stored is an event as the store holds it: checked, at version 2.
func stored(t *testing.T) event.Event {
	t.Helper()
	e := newEvent()
	if err := event.Check(&e); err != nil {
		t.Fatal(err)
	}
	e.ID, e.OrganizationID, e.Version = "e1", "acme", 2
	e.CreatedAt, e.UpdatedAt = start.Add(-time.Hour), start.Add(-time.Hour)
	e.LinkedCampaigns = []string{"c1"}
	return e
}

func ptr[T any](v T) *T { return &v }

func TestPatchApply(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		patch event.Patch
		field string // "" when valid
		check func(t *testing.T, e event.Event)
	}{
		{"status and end change, the rest stays", event.Patch{Status: ptr("published"), End: ptr(end.Add(24 * time.Hour))}, "",
			func(t *testing.T, e event.Event) {
				if e.Status != "published" || !e.EventDates.End.Equal(end.Add(24*time.Hour)) || !e.EventDates.Start.Equal(start) || e.Name != "SaaStr Annual" {
					t.Errorf("patched = %+v", e)
				}
			}},
		{"a sent list replaces the stored one", event.Patch{Tags: ptr([]string{"new", " new "})}, "",
			func(t *testing.T, e event.Event) {
				if !slices.Equal(e.Tags, []string{"new"}) {
					t.Errorf("tags = %q, want [new]", e.Tags)
				}
			}},
		{"end before start", event.Patch{End: ptr(start.Add(-time.Hour))}, "eventDates", nil},
		{"virtual without URL", event.Patch{Location: &event.Location{Type: "virtual"}}, "location.onlineUrl", nil},
		{"unknown type", event.Patch{Type: ptr("party")}, "type", nil},
		{"an unreadable date is reported with the rest", event.Patch{Type: ptr("party"),
			Unreadable: gifting.Problems{"eventDates.start": "must be an ISO 8601 date-time such as 2026-05-04T09:00:00Z"}}, "eventDates.start",
			func(t *testing.T, e event.Event) {}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := stored(t)
			err := tt.patch.Apply(&e)
			wantField(t, err, tt.field)
			if tt.name == "an unreadable date is reported with the rest" {
				wantField(t, err, "type")
			}
			if tt.check != nil && tt.field == "" {
				tt.check(t, e)
			}
		})
	}
}

func TestLinkAndUnlink(t *testing.T) {
	t.Parallel()
	t.Run("links keep each campaign once, in order", func(t *testing.T) {
		e := stored(t)
		if err := e.Link([]string{"c2", "c1", "c3"}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(e.LinkedCampaigns, []string{"c1", "c2", "c3"}) {
			t.Errorf("links = %q", e.LinkedCampaigns)
		}
	})
	t.Run("an event links at most MaxCampaigns", func(t *testing.T) {
		e := stored(t)
		ids := make([]string, event.MaxCampaigns)
		for i := range ids {
			ids[i] = fmt.Sprint("k", i)
		}
		err := e.Link(ids)
		wantField(t, err, "campaignIds")
		if want := fmt.Sprintf("an event links at most %d campaigns; it would link %d", event.MaxCampaigns, event.MaxCampaigns+1); err.(*gifting.Error).Details["campaignIds"] != want {
			t.Errorf("problem = %q, want %q", err.(*gifting.Error).Details["campaignIds"], want)
		}
	})
	t.Run("unlink removes the campaign", func(t *testing.T) {
		e := stored(t)
		if err := e.Unlink("c1"); err != nil || len(e.LinkedCampaigns) != 0 {
			t.Errorf("unlink: %v, links %q", err, e.LinkedCampaigns)
		}
	})
	t.Run("unlinking what is not linked is NOT_FOUND naming both", func(t *testing.T) {
		e := stored(t)
		err := e.Unlink("c9")
		if gifting.ErrorCode(err) != gifting.CodeNotFound || gifting.ErrorMessage(err) != `campaign "c9" is not linked to event "e1"` {
			t.Errorf("err = %v", err)
		}
	})
}

// TestChange: a change that leaves the event as it was writes nothing; one
// that changes it moves the version by one and updatedAt to now; the event
// it was decided from is left as read, so a retry decides from it again.
func TestChange(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name        string
		change      func(*event.Event) error
		write       bool
		wantVersion int
		wantCode    gifting.Code
	}{
		{"linking what is linked", func(e *event.Event) error { return e.Link([]string{"c1"}) }, false, 2, ""},
		{"a patch to the same values", event.Patch{Name: ptr(" SaaStr Annual ")}.Apply, false, 2, ""},
		{"a new link", func(e *event.Event) error { return e.Link([]string{"c2"}) }, true, 3, ""},
		{"an unlink", func(e *event.Event) error { return e.Unlink("c1") }, true, 3, ""},
		{"a refused patch", event.Patch{Type: ptr("party")}.Apply, false, 0, gifting.CodeValidation},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := stored(t)
			after, write, err := event.Change(e, tt.change, now)
			if (tt.wantCode == "") != (err == nil) || (err != nil && gifting.ErrorCode(err) != tt.wantCode) {
				t.Fatalf("err = %v, want %q", err, tt.wantCode)
			}
			if write != tt.write || after.Version != tt.wantVersion {
				t.Errorf("write %v version %d; want %v, %d", write, after.Version, tt.write, tt.wantVersion)
			}
			if write && !after.UpdatedAt.Equal(now) {
				t.Errorf("updatedAt = %v, want now", after.UpdatedAt)
			}
			if !slices.Equal(e.LinkedCampaigns, []string{"c1"}) || e.Version != 2 || e.Name != "SaaStr Annual" {
				t.Errorf("the event decided from changed: %+v", e)
			}
		})
	}
	t.Run("a deletion is the next version", func(t *testing.T) {
		d := event.Deleted(stored(t), now)
		if d.Version != 3 || !d.UpdatedAt.Equal(now) || d.ID != "e1" {
			t.Errorf("deleted = %+v", d)
		}
	})
}
