// Package audience is the audience slice: ideal-customer-profile personas,
// the audiences built from them (the organization's contacts that match a
// persona, priced per member), their members, and the copy of an audience
// into a contact list (docs/audiences.md).
//
// It holds the slice's domain types (no JSON or attribute tags: the API's
// shape is shared/httpapi's and shared/wire's, the stored item
// shared/dynamo's), its pure decisions (matching, the checks and patches,
// pricing, what each slice of a build writes, the rules of a rebuild, a
// delete and a copy racing each other, which reads a page of members takes),
// the ports it needs (Store, Jobs, Lists) and its application layer (App:
// load → decide → commit, deciding again when the audience moved first; the
// build, copy and purge jobs run through it). Storage implements Store and
// imports this package for its types and outcomes, never App
// (TestStorageDecidesNothing keeps it so).
package audience

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Persona is an ideal-customer-profile persona: who an audience is built
// for. A persona read through the App has every list and its company
// non-nil (Normalize), so the API answers [] and {} rather than null.
type Persona struct {
	ID             string
	OrganizationID string
	CreatedBy      string
	// Criteria are what contacts are matched by (the API's "persona"
	// object, with its name and description).
	Criteria  Criteria
	Company   map[string]any
	Status    string
	CreatedAt time.Time
	UpdatedAt time.Time
	Meta      PersonaMeta
}

// Criteria are a persona's name, description and the criteria contacts are
// matched by (match.go).
type Criteria struct {
	Name            string
	Description     string
	JobTitles       []string
	Departments     []string
	SeniorityLevels []string
	Locations       []Location
}

// Location is one place a persona's contacts may be in: a country, a
// region (state or province) of it, or both.
type Location struct {
	Country string
	Region  string
}

// PersonaMeta classifies a persona.
type PersonaMeta struct {
	Tags     []string
	Priority string
}

// Persona statuses and priorities, and the defaults of a new persona. The
// original interface shows the status active; the rest of both sets are
// this service's.
var (
	PersonaStatuses   = []string{"active", "inactive"}
	PersonaPriorities = []string{"low", "medium", "high"}
)

const (
	defaultPersonaStatus = "active"
	defaultPriority      = "medium"
)

// Normalize replaces nil lists and objects by empty ones, so a persona read
// back from storage shows [] and {} rather than null.
func (p *Persona) Normalize() {
	c := &p.Criteria
	for _, l := range []*[]string{&c.JobTitles, &c.Departments, &c.SeniorityLevels, &p.Meta.Tags} {
		if *l == nil {
			*l = []string{}
		}
	}
	if c.Locations == nil {
		c.Locations = []Location{}
	}
	if p.Company == nil {
		p.Company = map[string]any{}
	}
}

// Status is the state of an audience. An audience is created building;
// its build then moves it, once, to ready or failed; a rebuild makes a
// ready or failed one building again.
type Status string

// Audience states. The original interface shows list-building; ready and
// failed are this service's.
const (
	Building Status = "list-building"
	Ready    Status = "ready"
	Failed   Status = "failed"
)

// Statuses are the states of an audience, as the list filters them.
var Statuses = []string{string(Building), string(Ready), string(Failed)}

// Audience is the set of an organization's contacts matching an ICP
// persona, as of its build: a snapshot, priced per member.
type Audience struct {
	ID             string
	OrganizationID string
	CreatedBy      string
	Name           string
	ICPID          string
	TotalMatch     int64
	CreditRequired int64
	Status         Status
	Tags           []string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	Description    string
	Meta           Meta
}

// Meta is an audience's metadata: the price creditRequired is computed at,
// the progress of the build, and the contact lists made from it.
type Meta struct {
	// CreditsPerContact is the stated price: creditRequired is
	// totalMatch × creditsPerContact.
	CreditsPerContact int64
	// PricedBy says where the price came from (PricedByInput, PricedByGift
	// with GiftID, PricedByNone).
	PricedBy string
	GiftID   string
	// ContactsScanned counts the contacts the build has compared so far.
	ContactsScanned int64
	BuildStartedAt  time.Time
	BuildFinishedAt *time.Time
	// Error says why a failed build failed.
	Error string
	// ContactLists are the contact lists made from the audience, by list
	// id.
	ContactLists map[string]ListProgress
}

// Pricing sources of Meta.PricedBy: given by the caller, the price of a
// gift (given, or the cheapest available), or no gift was available
// (price 0).
const (
	PricedByInput = "creditsPerContact"
	PricedByGift  = "gift"
	PricedByNone  = "none"
)

// ListProgress is how far filling a contact list made from an audience has
// got. Its job adds the members in slices; Added + Unchanged + Failed is
// how many it has processed.
type ListProgress struct {
	// Status is ListAdding while the job runs, then ListReady (or
	// ListFailed when the job failed for good).
	Status string
	// Added counts members that joined the list; Unchanged, members that
	// were in it already; Failed, members that could not join (a contact
	// deleted since the build, or one already in too many lists).
	Added     int64
	Unchanged int64
	Failed    int64
	// Cursor is the contact id of the last member processed, while adding.
	Cursor string
	// Failures counts the job's consecutive failed slices, while adding.
	Failures int
}

// States of a contact list made from an audience.
const (
	ListAdding = "adding"
	ListReady  = "ready"
	ListFailed = "failed"
)

// Normalize replaces nil lists by empty ones.
func (a *Audience) Normalize() {
	if a.Tags == nil {
		a.Tags = []string{}
	}
	if a.Meta.ContactLists == nil {
		a.Meta.ContactLists = map[string]ListProgress{}
	}
}

// Build is the bookkeeping of an audience's build, which callers never see.
type Build struct {
	// Cursor is where in the organization's contacts the build has got
	// (Contact.Cursor of the last one compared); every commit of the build
	// is conditioned on it, so a slice that runs twice commits once.
	Cursor string
	// Failures counts the build's consecutive failed slices.
	Failures int
	// Clearing is set while a rebuild removes the previous build's
	// members; the build compares contacts only once they are all gone.
	Clearing bool
	// Due is set when the audience is in the due index, where the
	// scheduler's tick finds a build whose job was lost. An audience
	// stored before builds were due is not there.
	Due bool
}

// State is an audience as storage holds it: the record, its build's
// bookkeeping, and its version, which a commit decided from this state is
// conditioned on.
type State struct {
	Audience Audience
	Build    Build
	// Version is the stored updatedAt, spelled as storage holds it (the
	// spelling varies with the write that set it); "" when the item has
	// none. Storage compares it, the slice only hands it back.
	Version string
	// Indexed: every member of the audience was written with its entries
	// in the updatedAt and contactId orders and its search entries (an
	// audience created or rebuilt since they exist, or migrated).
	Indexed bool
}

// Member is one contact of an audience: the contact as it was when the
// build matched it (an audience is a snapshot), with what it matched on.
// A member read through the App has Departments non-nil.
type Member struct {
	AudienceID  string
	ContactID   string
	MailID      string
	FirstName   string
	LastName    string
	FullName    string
	JobTitle    string
	CompanyName string
	// City, State and Country are the contact's location (Contact.Place).
	City    string
	State   string
	Country string
	// Seniority and Departments are what the job title was recognised as.
	Seniority   string
	Departments []string
	MatchedOn   MatchedOn
	// CreatedAt and UpdatedAt are the contact's.
	CreatedAt time.Time
	UpdatedAt time.Time
	MatchedAt time.Time
}

// Normalize replaces nil lists by empty ones.
func (m *Member) Normalize() {
	if m.Departments == nil {
		m.Departments = []string{}
	}
}

// Contact is what a build reads of one of the organization's contacts:
// what matching compares and what a member keeps of it. Storage reads it
// from the contact area's items.
type Contact struct {
	// Cursor is where the contact is in the organization's contacts, in
	// the order a build reads them: the build's cursor once it is compared.
	Cursor string
	// ContactID is "" for an email's slot that holds no contact (an
	// alias): the build passes over it.
	ContactID   string
	MailID      string
	FirstName   string
	LastName    string
	FullName    string
	JobTitle    string
	CompanyName string
	// Address is the contact's address; Addresses its address entries,
	// whose primary one places the contact when Address is empty.
	Address   gifting.Address
	Addresses []gifting.AddressEntry
	IsDeleted bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Place is the address a contact is located by: its address, or the
// primary entry of its addresses when the address is empty.
func (c Contact) Place() gifting.Address {
	if !c.Address.IsZero() {
		return c.Address
	}
	for _, e := range c.Addresses {
		if e.IsPrimary {
			return e.Address
		}
	}
	return gifting.Address{}
}

// NewMember is the member of audience audienceID for contact c, matched on
// on at now.
func NewMember(audienceID string, c Contact, on MatchedOn, now time.Time) Member {
	loc := c.Place()
	return Member{
		AudienceID: audienceID, ContactID: c.ContactID, MailID: c.MailID,
		FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName,
		JobTitle: c.JobTitle, CompanyName: c.CompanyName,
		City: loc.City, State: loc.State, Country: loc.Country,
		Seniority: InferSeniority(c.JobTitle), Departments: InferDepartments(c.JobTitle),
		MatchedOn: on, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, MatchedAt: now,
	}
}
