package gifting

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// Event is a conference or similar event that campaigns can be linked to
// (docs/resources.md). Every field is always present in responses: optional
// strings are "" and optional lists [] when not set.
type Event struct {
	ID                string        `json:"id"`
	Name              string        `json:"name"`
	Type              string        `json:"type"`
	Status            string        `json:"status"`
	Visibility        string        `json:"visibility"`
	OrganizationID    string        `json:"organizationId"`
	CreatorUserID     string        `json:"creatorUserId"`
	EventDates        EventDates    `json:"eventDates"`
	Location          EventLocation `json:"location"`
	Description       string        `json:"description"`
	Host              string        `json:"host"`
	Agenda            string        `json:"agenda"`
	Focus             string        `json:"focus"`
	EventURL          string        `json:"eventUrl"`
	Banner            string        `json:"banner"`
	Hashtag           string        `json:"hashtag"`
	Topics            []string      `json:"topics"`
	TargetAudience    []string      `json:"targetAudience"`
	TargetAccounts    []string      `json:"targetAccounts"`
	LinkedCampaigns   []string      `json:"linkedCampaigns"`
	Tags              []string      `json:"tags"`
	Speakers          []Speaker     `json:"speakers"`
	ExpectedAttendees int           `json:"expectedAttendees"`
	CreatedAt         time.Time     `json:"createdAt"`
	UpdatedAt         time.Time     `json:"updatedAt"`
	// Version is 1 when the event is created and grows by one with every
	// change to the stored event, so a client can tell whether the copy
	// it holds is current.
	Version int `json:"version"`
}

// EventDates is when an event runs; Start is never after End.
type EventDates struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// EventLocation is where an event happens. Address and VenueName describe a
// physical place, OnlineURL a virtual one; a hybrid event has both.
type EventLocation struct {
	Type      string `json:"type"`
	Address   string `json:"address"`
	OnlineURL string `json:"onlineUrl"`
	VenueName string `json:"venueName"`
}

// Speaker is a person speaking at an event.
type Speaker struct {
	FullName string `json:"fullName"`
	Role     string `json:"role"`
	Company  string `json:"company"`
	PhotoURL string `json:"photoUrl"`
	Bio      string `json:"bio"`
}

// The value sets of an event's enumerated fields. The original interface shows
// one value of each (conference, draft, public, physical); the rest are this
// service's.
var (
	EventTypes         = []string{"conference", "webinar", "meetup", "trade_show", "workshop", "dinner", "roundtable", "other"}
	EventStatuses      = []string{"draft", "published", "cancelled", "completed"}
	EventVisibilities  = []string{"public", "private"}
	EventLocationTypes = []string{"physical", "virtual", "hybrid"}
)

// Defaults applied when a new event leaves them out.
const (
	DefaultEventStatus     = "draft"
	DefaultEventVisibility = "public"
)

// Limits of an event's fields.
const (
	maxEventName     = 200
	maxEventText     = 5000
	maxEventShort    = 500
	maxEventURL      = 2048
	maxEventList     = 50
	maxSpeakers      = 50
	MaxEventCampaign = 100
)

var hashtagPattern = regexp.MustCompile(`^#?[\p{L}\p{N}_]{1,100}$`)

// Validate normalizes a new event in place (trims text, fills defaults and
// empty lists) and reports every problem by JSON field name. Server-owned
// fields (id, organization, creator, timestamps, version, linkedCampaigns)
// are not checked here.
func (e *Event) Validate() error {
	var p Problems
	e.Name = strings.TrimSpace(e.Name)
	switch {
	case e.Name == "":
		p.Add("name", "is required")
	case tooLong(e.Name, maxEventName):
		p.Add("name", "must be at most "+itoa(maxEventName)+" characters")
	}
	e.Type = strings.TrimSpace(e.Type)
	if e.Type == "" {
		p.Add("type", "is required; one of "+strings.Join(EventTypes, ", "))
	} else if !slices.Contains(EventTypes, e.Type) {
		p.Add("type", "must be one of "+strings.Join(EventTypes, ", "))
	}
	if e.Status = strings.TrimSpace(e.Status); e.Status == "" {
		e.Status = DefaultEventStatus
	} else if !slices.Contains(EventStatuses, e.Status) {
		p.Add("status", "must be one of "+strings.Join(EventStatuses, ", "))
	}
	if e.Visibility = strings.TrimSpace(e.Visibility); e.Visibility == "" {
		e.Visibility = DefaultEventVisibility
	} else if !slices.Contains(EventVisibilities, e.Visibility) {
		p.Add("visibility", "must be one of "+strings.Join(EventVisibilities, ", "))
	}
	e.validateDates(&p)
	e.validateLocation(&p)
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{
		{"description", &e.Description, maxEventText}, {"host", &e.Host, maxEventShort},
		{"agenda", &e.Agenda, maxEventText}, {"focus", &e.Focus, maxEventShort},
		{"eventUrl", &e.EventURL, maxEventURL}, {"banner", &e.Banner, maxEventURL}, {"hashtag", &e.Hashtag, 101},
	} {
		*f.v = strings.TrimSpace(*f.v)
		p.AtMost(f.name, *f.v, f.max)
	}
	for _, f := range []struct{ name, v string }{{"eventUrl", e.EventURL}, {"banner", e.Banner}} {
		if f.v != "" && !ValidURL(f.v) {
			p.Add(f.name, "must be an http(s) URL")
		}
	}
	if e.Hashtag != "" && !hashtagPattern.MatchString(e.Hashtag) {
		p.Add("hashtag", "must be one word of letters, digits or underscores, optionally starting with #")
	}
	for _, f := range []struct {
		name string
		v    *[]string
	}{
		{"topics", &e.Topics}, {"targetAudience", &e.TargetAudience}, {"targetAccounts", &e.TargetAccounts}, {"tags", &e.Tags},
	} {
		*f.v = cleanStrings(&p, f.name, *f.v, maxEventList, maxEventShort)
	}
	if e.ExpectedAttendees < 0 {
		p.Add("expectedAttendees", "must be zero or more")
	}
	if len(e.Speakers) > maxSpeakers {
		p.Add("speakers", "must hold at most "+itoa(maxSpeakers)+" speakers")
	}
	for i := range e.Speakers {
		e.Speakers[i].validate(&p, "speakers["+itoa(i)+"]")
	}
	if e.Speakers == nil {
		e.Speakers = []Speaker{}
	}
	if e.LinkedCampaigns == nil {
		e.LinkedCampaigns = []string{}
	}
	return p.Err()
}

func (e *Event) validateDates(p *Problems) {
	switch {
	case e.EventDates.Start.IsZero() && e.EventDates.End.IsZero():
		p.Add("eventDates", "is required: {start, end} as ISO 8601 date-times")
	case e.EventDates.Start.IsZero():
		p.Add("eventDates.start", "is required")
	case e.EventDates.End.IsZero():
		p.Add("eventDates.end", "is required")
	case e.EventDates.Start.After(e.EventDates.End):
		p.Add("eventDates", "start must not be after end")
	}
	e.EventDates.Start = e.EventDates.Start.UTC().Truncate(time.Millisecond)
	e.EventDates.End = e.EventDates.End.UTC().Truncate(time.Millisecond)
}

// validateLocation requires what each kind of location needs to be found:
// a venue or address for a physical event, a URL for a virtual one, both
// for a hybrid one.
func (e *Event) validateLocation(p *Problems) {
	l := &e.Location
	l.Type, l.Address = strings.TrimSpace(l.Type), strings.TrimSpace(l.Address)
	l.OnlineURL, l.VenueName = strings.TrimSpace(l.OnlineURL), strings.TrimSpace(l.VenueName)
	if l.Type == "" {
		p.Add("location.type", "is required; one of "+strings.Join(EventLocationTypes, ", "))
		return
	}
	if !slices.Contains(EventLocationTypes, l.Type) {
		p.Add("location.type", "must be one of "+strings.Join(EventLocationTypes, ", "))
		return
	}
	if tooLong(l.Address, maxEventShort) || tooLong(l.VenueName, maxEventShort) {
		p.Add("location", "address and venueName must be at most "+itoa(maxEventShort)+" characters")
	}
	if l.OnlineURL != "" && !ValidURL(l.OnlineURL) {
		p.Add("location.onlineUrl", "must be an http(s) URL")
	}
	if l.Type != "virtual" && l.Address == "" && l.VenueName == "" {
		p.Add("location.address", "a "+l.Type+" event needs an address or a venueName")
	}
	if l.Type != "physical" && l.OnlineURL == "" {
		p.Add("location.onlineUrl", "a "+l.Type+" event needs an onlineUrl")
	}
}

func (s *Speaker) validate(p *Problems, field string) {
	s.FullName, s.Role, s.Company = strings.TrimSpace(s.FullName), strings.TrimSpace(s.Role), strings.TrimSpace(s.Company)
	s.PhotoURL, s.Bio = strings.TrimSpace(s.PhotoURL), strings.TrimSpace(s.Bio)
	if s.FullName == "" {
		p.Add(field+".fullName", "is required")
	}
	if tooLong(s.FullName, maxEventName) || tooLong(s.Role, maxEventName) || tooLong(s.Company, maxEventName) {
		p.Add(field, "fullName, role and company must be at most "+itoa(maxEventName)+" characters")
	}
	p.AtMost(field+".bio", s.Bio, maxEventText)
	if s.PhotoURL != "" && !ValidURL(s.PhotoURL) {
		p.Add(field+".photoUrl", "must be an http(s) URL")
	}
}

// cleanStrings trims the entries of a string list, drops blank ones and
// repeats (case-insensitively), and reports a list or an entry that is too
// long. A list is too long as sent, repeats included (the API document's
// maxItems). It never returns nil.
func cleanStrings(p *Problems, field string, in []string, maxItems, maxLen int) []string {
	if len(in) > maxItems {
		p.Add(field, "must hold at most "+itoa(maxItems)+" entries")
		in = in[:maxItems] // the rest is refused anyway; comparing it would cost the square of the list
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" || containsFold(out, s) {
			continue
		}
		if tooLong(s, maxLen) {
			p.Add(field, "entries must be at most "+itoa(maxLen)+" characters")
		}
		out = append(out, s)
	}
	if len(out) > maxItems {
		p.Add(field, "must hold at most "+itoa(maxItems)+" entries")
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// Normalize replaces nil lists by empty ones, so an event read back from
// storage (where empty lists are not kept) shows [] rather than null.
func (e *Event) Normalize() {
	for _, l := range []*[]string{&e.Topics, &e.TargetAudience, &e.TargetAccounts, &e.LinkedCampaigns, &e.Tags} {
		if *l == nil {
			*l = []string{}
		}
	}
	if e.Speakers == nil {
		e.Speakers = []Speaker{}
	}
}
