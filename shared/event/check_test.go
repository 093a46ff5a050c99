package event_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/gifting"
)

var (
	start = time.Date(2026, 9, 9, 8, 0, 0, 0, time.UTC)
	end   = time.Date(2026, 9, 11, 18, 0, 0, 0, time.UTC)
)

// newEvent is the smallest event Check accepts: a physical conference.
func newEvent() event.Event {
	return event.Event{Name: "SaaStr Annual", Type: "conference", EventDates: event.Dates{Start: start, End: end},
		Location: event.Location{Type: "physical", VenueName: "Event Center", Address: "2 Convention Way"}}
}

// with is newEvent changed by f.
func with(f func(e *event.Event)) event.Event {
	e := newEvent()
	f(&e)
	return e
}

// wantField checks that err is a VALIDATION_FAILED naming field, or nil
// when field is "".
func wantField(t *testing.T, err error, field string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	var e *gifting.Error
	if !errors.As(err, &e) || e.Code != gifting.CodeValidation || e.Details[field] == "" {
		t.Fatalf("err = %v; want VALIDATION_FAILED naming %s", err, field)
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		e     event.Event
		field string // "" when valid
	}{
		{"the smallest event", newEvent(), ""},
		{"missing name", with(func(e *event.Event) { e.Name = " " }), "name"},
		{"name too long", with(func(e *event.Event) { e.Name = strings.Repeat("é", 201) }), "name"},
		{"missing type", with(func(e *event.Event) { e.Type = "" }), "type"},
		{"unknown type", with(func(e *event.Event) { e.Type = "party" }), "type"},
		{"unknown status", with(func(e *event.Event) { e.Status = "live" }), "status"},
		{"unknown visibility", with(func(e *event.Event) { e.Visibility = "secret" }), "visibility"},
		{"missing dates", with(func(e *event.Event) { e.EventDates = event.Dates{} }), "eventDates"},
		{"missing start", with(func(e *event.Event) { e.EventDates.Start = time.Time{} }), "eventDates.start"},
		{"missing end", with(func(e *event.Event) { e.EventDates.End = time.Time{} }), "eventDates.end"},
		{"start after end", with(func(e *event.Event) { e.EventDates.Start = end.Add(time.Hour) }), "eventDates"},
		{"missing location type", with(func(e *event.Event) { e.Location = event.Location{Address: "x"} }), "location.type"},
		{"unknown location type", with(func(e *event.Event) { e.Location.Type = "moon" }), "location.type"},
		{"physical without place", with(func(e *event.Event) { e.Location = event.Location{Type: "physical"} }), "location.address"},
		{"virtual without url", with(func(e *event.Event) { e.Location = event.Location{Type: "virtual"} }), "location.onlineUrl"},
		{"hybrid without url", with(func(e *event.Event) { e.Location.Type = "hybrid" }), "location.onlineUrl"},
		{"bad online url", with(func(e *event.Event) { e.Location = event.Location{Type: "virtual", OnlineURL: "zoom"} }), "location.onlineUrl"},
		{"venue too long", with(func(e *event.Event) { e.Location.VenueName = strings.Repeat("v", 501) }), "location"},
		{"bad event url", with(func(e *event.Event) { e.EventURL = "javascript:alert(1)" }), "eventUrl"},
		{"bad banner", with(func(e *event.Event) { e.Banner = "ftp://x/y.png" }), "banner"},
		{"description too long", with(func(e *event.Event) { e.Description = strings.Repeat("d", 5001) }), "description"},
		{"host too long", with(func(e *event.Event) { e.Host = strings.Repeat("h", 501) }), "host"},
		{"bad hashtag", with(func(e *event.Event) { e.Hashtag = "two words" }), "hashtag"},
		{"hashtag with #", with(func(e *event.Event) { e.Hashtag = "#saastr" }), ""},
		{"too many topics", with(func(e *event.Event) { e.Topics = make([]string, 51) }), "topics"},
		{"tag too long", with(func(e *event.Event) { e.Tags = []string{strings.Repeat("t", 501)} }), "tags"},
		{"negative attendees", with(func(e *event.Event) { e.ExpectedAttendees = -1 }), "expectedAttendees"},
		{"bad speaker photo", with(func(e *event.Event) { e.Speakers = []event.Speaker{{FullName: "J", PhotoURL: "x"}} }), "speakers[0].photoUrl"},
		{"speaker without name", with(func(e *event.Event) { e.Speakers = []event.Speaker{{Role: "CEO"}} }), "speakers[0].fullName"},
		{"speaker role too long", with(func(e *event.Event) { e.Speakers = []event.Speaker{{FullName: "J", Role: strings.Repeat("r", 201)}} }), "speakers[0]"},
		{"too many speakers", with(func(e *event.Event) { e.Speakers = slices.Repeat([]event.Speaker{{FullName: "J"}}, 51) }), "speakers"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.e
			wantField(t, event.Check(&e), tt.field)
		})
	}
}

// TestCheckNormalizes: a new event is trimmed, its enumerations get their
// defaults, its lists are never null and lose blank and repeated entries,
// and its dates are UTC to the millisecond, as stored.
func TestCheckNormalizes(t *testing.T) {
	t.Parallel()
	paris := time.FixedZone("CEST", 2*3600)
	e := with(func(e *event.Event) {
		e.Name, e.Host = "  SaaStr  ", " Acme "
		e.Tags = []string{"2026", " 2026 ", "", "SaaS", "saas"}
		e.EventDates.End = time.Date(2026, 9, 11, 20, 0, 0, 123_456_789, paris)
		e.Location.VenueName = " Hall A "
	})
	if err := event.Check(&e); err != nil {
		t.Fatal(err)
	}
	if e.Name != "SaaStr" || e.Host != "Acme" || e.Location.VenueName != "Hall A" {
		t.Errorf("texts not trimmed: %q %q %q", e.Name, e.Host, e.Location.VenueName)
	}
	if e.Status != event.DefaultStatus || e.Visibility != event.DefaultVisibility {
		t.Errorf("status %q visibility %q; want the defaults draft, public", e.Status, e.Visibility)
	}
	if !slices.Equal(e.Tags, []string{"2026", "SaaS"}) || e.Topics == nil || e.Speakers == nil || e.LinkedCampaigns == nil {
		t.Errorf("lists: tags %q topics %v speakers %v links %v; want tags [2026 SaaS], the rest empty, not nil", e.Tags, e.Topics, e.Speakers, e.LinkedCampaigns)
	}
	if want := time.Date(2026, 9, 11, 18, 0, 0, 123_000_000, time.UTC); e.EventDates.End != want {
		t.Errorf("end = %v, want %v (UTC, milliseconds)", e.EventDates.End, want)
	}
}

func TestCampaignIDs(t *testing.T) {
	t.Parallel()
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = "c" + strings.Repeat("x", i)
		}
		return out
	}
	for _, tt := range []struct {
		name     string
		ids      []string
		required bool
		want     []string
		field    string
	}{
		{"trimmed, repeats once", []string{" c1 ", "c2", "c1"}, true, []string{"c1", "c2"}, ""},
		{"none where optional", nil, false, []string{}, ""},
		{"none where required", []string{}, true, nil, "campaignIds"},
		{"a blank entry", []string{"c1", " "}, true, nil, "campaignIds"},
		{"the most an event links", many(event.MaxCampaigns), true, many(event.MaxCampaigns), ""},
		{"one more", many(event.MaxCampaigns + 1), true, nil, "campaignIds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := event.CampaignIDs(tt.ids, "campaignIds", tt.required)
			wantField(t, err, tt.field)
			if tt.field == "" && !slices.Equal(got, tt.want) {
				t.Errorf("ids = %q, want %q", got, tt.want)
			}
		})
	}
}
