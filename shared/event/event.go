// Package event is the event slice: conferences, webinars and the like
// that an organization's campaigns are linked to.
//
// It holds the slice's domain types (no JSON or attribute tags: the API's
// shape is shared/httpapi's, the stored item shared/dynamo's), its pure
// decisions (Check, Patch.Apply, Link, Unlink, Change, Select: an event in,
// the event to write or the domain error out), the port it needs of
// storage (Store) and its application layer (App: load → decide → commit,
// deciding again when another change moved the event's version first).
// Storage implements Store and imports this package for its types and
// outcomes, never App (TestStorageDecidesNothing keeps it so).
package event

import "time"

// Event is an event campaigns can be linked to (docs/resources.md). An
// event read through the App has every list non-nil (Normalize), so the
// API answers [] rather than null for a list never set.
type Event struct {
	ID                string
	Name              string
	Type              string
	Status            string
	Visibility        string
	OrganizationID    string
	CreatorUserID     string
	EventDates        Dates
	Location          Location
	Description       string
	Host              string
	Agenda            string
	Focus             string
	EventURL          string
	Banner            string
	Hashtag           string
	Topics            []string
	TargetAudience    []string
	TargetAccounts    []string
	LinkedCampaigns   []string
	Tags              []string
	Speakers          []Speaker
	ExpectedAttendees int
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// Version is 1 when the event is created and grows by one with every
	// change to the stored event, so a client can tell whether the copy
	// it holds is current.
	Version int
}

// Dates is when an event runs; Start is never after End.
type Dates struct {
	Start time.Time
	End   time.Time
}

// Location is where an event happens. Address and VenueName describe a
// physical place, OnlineURL a virtual one; a hybrid event has both.
type Location struct {
	Type      string
	Address   string
	OnlineURL string
	VenueName string
}

// Speaker is a person speaking at an event.
type Speaker struct {
	FullName string
	Role     string
	Company  string
	PhotoURL string
	Bio      string
}

// The value sets of an event's enumerated fields. The original interface
// shows one value of each (conference, draft, public, physical); the rest
// are this service's.
var (
	Types         = []string{"conference", "webinar", "meetup", "trade_show", "workshop", "dinner", "roundtable", "other"}
	Statuses      = []string{"draft", "published", "cancelled", "completed"}
	Visibilities  = []string{"public", "private"}
	LocationTypes = []string{"physical", "virtual", "hybrid"}
)

// Defaults applied when a new event leaves them out.
const (
	DefaultStatus     = "draft"
	DefaultVisibility = "public"
)

// Limits of an event's fields, in characters. MaxCampaigns bounds the
// campaigns linked to one event.
const (
	maxName      = 200
	maxText      = 5000
	maxShort     = 500
	maxURL       = 2048
	maxList      = 50
	maxSpeakers  = 50
	MaxCampaigns = 100
)

// Normalize replaces nil lists by empty ones, so an event read back from
// storage (where a list never set is not kept) shows [] rather than null.
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
