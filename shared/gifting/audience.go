package gifting

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"
)

// ICPPersona is an ideal-customer-profile persona: who an audience list is
// built for (docs/audiences.md).
type ICPPersona struct {
	ICPID          string          `json:"icpId"`
	OrganizationID string          `json:"organizationId"`
	CreatedBy      string          `json:"createdBy"`
	Persona        Persona         `json:"persona"`
	Company        map[string]any  `json:"company"`
	Status         string          `json:"status"`
	CreatedAt      time.Time       `json:"createdAt"`
	UpdatedAt      time.Time       `json:"updatedAt"`
	Metadata       PersonaMetadata `json:"metadata"`
}

// Persona holds the criteria contacts are matched by (see audience_match.go).
// The JSON names are the original interface's, snake_case.
type Persona struct {
	Name             string            `json:"name"`
	Description      string            `json:"description"`
	JobTitles        []string          `json:"job_titles"`
	Departments      []string          `json:"departments"`
	SeniorityLevels  []string          `json:"seniority_levels"`
	ContactLocations []ContactLocation `json:"contact_locations"`
}

// ContactLocation is one place a persona's contacts may be in: a country,
// a region (state or province) of it, or both.
type ContactLocation struct {
	Country string `json:"country"`
	Region  string `json:"region"`
}

// PersonaMetadata classifies a persona.
type PersonaMetadata struct {
	Tags     []string `json:"tags"`
	Priority string   `json:"priority"`
}

// Persona statuses and priorities. The original interface shows the status
// active; the rest of both sets are this service's.
var (
	PersonaStatuses   = []string{"active", "inactive"}
	PersonaPriorities = []string{"low", "medium", "high"}
)

// Limits of a persona's fields.
const (
	maxCriteria     = 50
	maxCriterionLen = 100
	maxCompanyJSON  = 16 << 10
	maxCompanyDepth = 8
	maxDescription  = 2000
	maxTitle        = 200
)

// Validate normalizes a new persona in place (trims, drops blank and
// repeated criteria, fills defaults) and reports every problem by JSON
// field name.
func (icp *ICPPersona) Validate() error {
	var p Problems
	ps := &icp.Persona
	ps.Name, ps.Description = strings.TrimSpace(ps.Name), strings.TrimSpace(ps.Description)
	switch {
	case ps.Name == "":
		p.Add("persona.name", "is required")
	case tooLong(ps.Name, maxTitle):
		p.Add("persona.name", "must be at most "+itoa(maxTitle)+" characters")
	}
	p.AtMost("persona.description", ps.Description, maxDescription)
	ps.JobTitles = CleanStrings(&p, "persona.job_titles", ps.JobTitles, maxCriteria, maxCriterionLen)
	ps.Departments = CleanStrings(&p, "persona.departments", ps.Departments, maxCriteria, maxCriterionLen)
	ps.SeniorityLevels = CleanStrings(&p, "persona.seniority_levels", ps.SeniorityLevels, maxCriteria, maxCriterionLen)
	for _, s := range ps.SeniorityLevels {
		if _, ok := SeniorityLevel(s); !ok {
			p.Add("persona.seniority_levels", "\""+s+"\" is not a seniority level; use "+strings.Join(SeniorityLevels, ", "))
		}
	}
	for i, t := range ps.JobTitles {
		if len(words(t)) == 0 {
			p.Add("persona.job_titles", "entry "+itoa(i)+" has no letters or digits")
		}
	}
	for i, d := range ps.Departments {
		if len(words(d)) == 0 {
			p.Add("persona.departments", "entry "+itoa(i)+" has no letters or digits")
		}
	}
	if len(ps.ContactLocations) > maxCriteria {
		p.Add("persona.contact_locations", "must hold at most "+itoa(maxCriteria)+" entries")
	}
	for i := range ps.ContactLocations {
		l := &ps.ContactLocations[i]
		l.Country, l.Region = strings.TrimSpace(l.Country), strings.TrimSpace(l.Region)
		field := "persona.contact_locations[" + itoa(i) + "]"
		if len(rawWords(l.Country)) == 0 && len(rawWords(l.Region)) == 0 {
			p.Add(field, "needs a country, a region or both")
		}
		if tooLong(l.Country, maxCriterionLen) || tooLong(l.Region, maxCriterionLen) {
			p.Add(field, "country and region must be at most "+itoa(maxCriterionLen)+" characters")
		}
	}
	if ps.ContactLocations == nil {
		ps.ContactLocations = []ContactLocation{}
	}
	if icp.Status = strings.TrimSpace(icp.Status); icp.Status == "" {
		icp.Status = "active"
	} else if !slices.Contains(PersonaStatuses, icp.Status) {
		p.Add("status", "must be one of "+strings.Join(PersonaStatuses, ", "))
	}
	m := &icp.Metadata
	if m.Priority = strings.TrimSpace(m.Priority); m.Priority == "" {
		m.Priority = "medium"
	} else if !slices.Contains(PersonaPriorities, m.Priority) {
		p.Add("metadata.priority", "must be one of "+strings.Join(PersonaPriorities, ", "))
	}
	m.Tags = CleanStrings(&p, "metadata.tags", m.Tags, maxCriteria, maxCriterionLen)
	if icp.Company == nil {
		icp.Company = map[string]any{}
	}
	if b, err := json.Marshal(icp.Company); err != nil || len(b) > maxCompanyJSON {
		p.Add("company", "must be an object of at most "+itoa(maxCompanyJSON)+" bytes of JSON")
	} else if depth(icp.Company) > maxCompanyDepth {
		p.Add("company", "must nest at most "+itoa(maxCompanyDepth)+" levels deep")
	} else if at, found := emptyKey(icp.Company, "company"); found {
		// DynamoDB cannot store an attribute without a name.
		p.Add("company", "keys must not be empty; "+at+" has an empty key")
	}
	return p.Err()
}

// emptyKey finds an object with an empty key in v, at any depth, and
// returns where it is (at names v).
func emptyKey(v any, at string) (where string, found bool) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x[""]; ok {
			return at, true
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if where, found := emptyKey(x[k], at+"."+k); found {
				return where, true
			}
		}
	case []any:
		for i, e := range x {
			if where, found := emptyKey(e, at+"["+itoa(i)+"]"); found {
				return where, true
			}
		}
	}
	return "", false
}

// depth is how deeply v nests objects and arrays.
func depth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

// Normalize replaces nil lists and objects by empty ones, so a persona read
// back from storage shows [] and {} rather than null.
func (icp *ICPPersona) Normalize() {
	ps := &icp.Persona
	for _, l := range []*[]string{&ps.JobTitles, &ps.Departments, &ps.SeniorityLevels, &icp.Metadata.Tags} {
		if *l == nil {
			*l = []string{}
		}
	}
	if ps.ContactLocations == nil {
		ps.ContactLocations = []ContactLocation{}
	}
	if icp.Company == nil {
		icp.Company = map[string]any{}
	}
}

// AudienceStatus is the state of an audience list. A list is created
// list-building; the build then moves it, once, to ready or failed.
type AudienceStatus string

// Audience list states. The original interface shows list-building; ready and
// failed are this service's.
const (
	AudienceBuilding AudienceStatus = "list-building"
	AudienceReady    AudienceStatus = "ready"
	AudienceFailed   AudienceStatus = "failed"
)

// AudienceList is the set of an organization's contacts matching an ICP
// persona, as of its build (docs/audiences.md).
type AudienceList struct {
	AudienceID     string         `json:"audienceId"`
	OrganizationID string         `json:"organizationId"`
	CreatedBy      string         `json:"createdBy"`
	Name           string         `json:"name"`
	ICPID          string         `json:"icpId"`
	TotalMatch     int64          `json:"totalMatch"`
	CreditRequired int64          `json:"creditRequired"`
	Status         AudienceStatus `json:"status"`
	Tags           []string       `json:"tags"`
	CreatedAt      time.Time      `json:"createdAt"`
	UpdatedAt      time.Time      `json:"updatedAt"`
	Description    string         `json:"description"`
	Metadata       AudienceMeta   `json:"metadata"`
}

// AudienceMeta is the audience's metadata object: the price creditRequired
// is computed at, and the progress of the build.
type AudienceMeta struct {
	// CreditsPerContact is the stated price: creditRequired is
	// totalMatch × creditsPerContact.
	CreditsPerContact int64 `json:"creditsPerContact"`
	// PricedBy says where the price came from: "creditsPerContact" (given
	// by the caller), "gift" (the price of GiftID, given or the cheapest
	// available gift), or "none" (no gift was available: price 0).
	PricedBy string `json:"pricedBy"`
	GiftID   string `json:"giftId,omitempty"`
	// ContactsScanned counts the contacts the build has compared so far.
	ContactsScanned int64      `json:"contactsScanned"`
	BuildStartedAt  time.Time  `json:"buildStartedAt"`
	BuildFinishedAt *time.Time `json:"buildFinishedAt,omitempty"`
	// Error says why a failed build failed.
	Error string `json:"error,omitempty"`
	// ContactLists are the contact lists made from this audience, by list
	// id.
	ContactLists map[string]ListProgress `json:"contactLists"`
}

// ListProgress is how far filling a contact list made from an audience has
// got. The members are added by a background job; added + unchanged +
// failed is the number of members processed so far.
type ListProgress struct {
	// Status is adding while the job runs, then ready (or failed when the
	// job failed for good).
	Status string `json:"status"`
	// Added counts members that joined the list; Unchanged, members that
	// were already in it; Failed, members that could not join (a contact
	// deleted since the build, or one already in too many lists).
	Added     int64 `json:"added"`
	Unchanged int64 `json:"unchanged"`
	Failed    int64 `json:"failed"`
	// Cursor is the id of the last member processed, while adding.
	Cursor string `json:"cursor,omitempty"`
	// Failures counts consecutive failed slices of the job, while adding.
	Failures int `json:"failures,omitempty"`
}

// States of a contact list made from an audience.
const (
	ListAdding = "adding"
	ListReady  = "ready"
	ListFailed = "failed"
)

// Pricing sources of AudienceMeta.PricedBy.
const (
	PricedByInput = "creditsPerContact"
	PricedByGift  = "gift"
	PricedByNone  = "none"
)

// NotReady is the CONFLICT of using an audience that is not ready (turning
// it into a contact list).
func (a AudienceList) NotReady() error {
	if a.Status == AudienceBuilding {
		return Errorf(CodeConflict, "audience list %q is still being built; try again when its status is ready", a.AudienceID)
	}
	return Errorf(CodeConflict, "audience list %q is %s; only a ready audience can become a contact list", a.AudienceID, a.Status)
}

// Normalize replaces nil lists by empty ones.
func (a *AudienceList) Normalize() {
	if a.Tags == nil {
		a.Tags = []string{}
	}
	if a.Metadata.ContactLists == nil {
		a.Metadata.ContactLists = map[string]ListProgress{}
	}
}

// ValidateAudience normalizes and checks the fields a caller sets on a new
// audience list.
func ValidateAudience(a *AudienceList) error {
	var p Problems
	a.Name, a.Description, a.ICPID = strings.TrimSpace(a.Name), strings.TrimSpace(a.Description), strings.TrimSpace(a.ICPID)
	switch {
	case a.Name == "":
		p.Add("name", "is required")
	case tooLong(a.Name, maxTitle):
		p.Add("name", "must be at most "+itoa(maxTitle)+" characters")
	}
	if a.ICPID == "" {
		p.Add("icpId", "is required")
	}
	p.AtMost("description", a.Description, maxDescription)
	a.Tags = CleanStrings(&p, "tags", a.Tags, maxCriteria, maxCriterionLen)
	return p.Err()
}

// AudienceMember is one contact of an audience list: the contact as it was
// when the build matched it (an audience is a snapshot), with what it
// matched on. These are the items of the audience contacts endpoint.
type AudienceMember struct {
	AudienceID  string `json:"audienceId"`
	ContactID   string `json:"contactId"`
	MailID      string `json:"mailId"`
	FirstName   string `json:"firstName"`
	LastName    string `json:"lastName"`
	FullName    string `json:"fullName"`
	JobTitle    string `json:"jobTitle"`
	CompanyName string `json:"companyName"`
	// City, State and Country are the contact's location (see
	// ContactLocationOf).
	City    string `json:"city"`
	State   string `json:"state"`
	Country string `json:"country"`
	// Seniority and Departments are what the job title was recognised as.
	Seniority   string    `json:"seniority"`
	Departments []string  `json:"departments"`
	MatchedOn   MatchedOn `json:"matchedOn"`
	// CreatedAt and UpdatedAt are the contact's.
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	MatchedAt time.Time `json:"matchedAt"`
}

// NewAudienceMember is the member of audience audienceID for contact c.
func NewAudienceMember(audienceID string, c Contact, on MatchedOn, now time.Time) AudienceMember {
	loc := ContactLocationOf(c)
	return AudienceMember{
		AudienceID: audienceID, ContactID: c.ContactID, MailID: c.MailID,
		FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName,
		JobTitle: c.JobTitle, CompanyName: c.CompanyName,
		City: loc.City, State: loc.State, Country: loc.Country,
		Seniority: InferSeniority(c.JobTitle), Departments: InferDepartments(c.JobTitle),
		MatchedOn: on, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, MatchedAt: now,
	}
}

// SearchText is what free-text search over an audience matches: the
// lower-cased names, email, company and job title.
func (m AudienceMember) SearchText() string {
	return strings.ToLower(strings.Join([]string{m.FirstName, m.LastName, m.FullName, m.MailID, m.CompanyName, m.JobTitle}, " "))
}

// Normalize replaces nil lists by empty ones.
func (m *AudienceMember) Normalize() {
	if m.Departments == nil {
		m.Departments = []string{}
	}
}
