package contact

import (
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// Query is who an enrichment looks up: a LinkedIn URL, or a name and
// company.
type Query struct {
	FirstName   string
	LastName    string
	CompanyName string
	LinkedinURL string
}

// Validate trims the query and checks it names someone: a LinkedIn URL, or
// first name, last name and company. Errors: VALIDATION_FAILED under the
// request's field names (firstname, lastname, company_name,
// linkedin_url).
func (q *Query) Validate() error {
	var p gifting.Problems
	for _, f := range []struct {
		name string
		v    *string
	}{{"firstname", &q.FirstName}, {"lastname", &q.LastName}, {"company_name", &q.CompanyName}, {"linkedin_url", &q.LinkedinURL}} {
		*f.v = strings.TrimSpace(*f.v)
		if gifting.TooLong(*f.v, maxURLLen) {
			p.Add(f.name, "is too long")
		}
	}
	if q.LinkedinURL != "" && !gifting.ValidURL(q.LinkedinURL) {
		p.Add("linkedin_url", "must be an http(s) URL")
	}
	if q.LinkedinURL == "" {
		for name, v := range map[string]string{"firstname": q.FirstName, "lastname": q.LastName, "company_name": q.CompanyName} {
			if v == "" {
				p.Add(name, "is required when linkedin_url is not given")
			}
		}
	}
	return p.Err()
}

// Named reports whether q names a person by first name, last name and
// company.
func (q Query) Named() bool { return q.FirstName != "" && q.LastName != "" && q.CompanyName != "" }

// How an enrichment matched.
const (
	MatchedByLinkedin    = "linkedin_url"
	MatchedByNameCompany = "name_company"
)

// ProviderContacts names the provider of enrichments from the
// organization's own contacts.
const ProviderContacts = "organization_contacts"

// Enrichment is the answer to a query.
type Enrichment struct {
	Matched bool
	// MatchedBy is MatchedByLinkedin or MatchedByNameCompany; "" when
	// nothing matched.
	MatchedBy string
	// Provider names who answered.
	Provider string
	// Person is nil when nothing matched.
	Person *Person
}

// Person is what is known about the person looked up.
type Person struct {
	ContactID    string
	FirstName    string
	LastName     string
	FullName     string
	Email        string
	CompanyName  string
	JobTitle     string
	PhoneNumber  string
	LinkedinURL  string
	ProfileImage string
	Address      Address
}

// PersonOf is the enrichment view of a contact.
func PersonOf(c Contact) *Person {
	return &Person{
		ContactID: c.ContactID, FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName,
		Email: c.MailID, CompanyName: c.CompanyName, JobTitle: c.JobTitle, PhoneNumber: c.PhoneNumber,
		LinkedinURL: c.LinkedinURL, ProfileImage: c.ProfileImage, Address: c.Address,
	}
}

// Match says how c matches q: by LinkedIn URL (compared as LinkedinKey),
// else by first name, last name and company (case-insensitively); "" when
// it does not.
func Match(c Contact, q Query) string {
	if q.LinkedinURL != "" && LinkedinKey(c.LinkedinURL) == LinkedinKey(q.LinkedinURL) {
		return MatchedByLinkedin
	}
	if q.Named() && strings.EqualFold(c.FirstName, q.FirstName) && strings.EqualFold(c.LastName, q.LastName) &&
		strings.EqualFold(c.CompanyName, q.CompanyName) {
		return MatchedByNameCompany
	}
	return ""
}

// Finder picks the contact an enrichment answers with among candidates
// seen newest first: the first LinkedIn match, else the first name match.
// A LinkedIn match beats a name match, whichever contact is newer.
type Finder struct {
	q      Query
	best   *Contact
	bestBy string
}

// NewFinder returns a Finder for q.
func NewFinder(q Query) *Finder { return &Finder{q: q} }

// See considers candidates, newest first.
func (f *Finder) See(candidates []Contact) {
	for i := range candidates {
		by := Match(candidates[i], f.q)
		if by != "" && (f.best == nil || (f.bestBy != MatchedByLinkedin && by == MatchedByLinkedin)) {
			f.best, f.bestBy = &candidates[i], by
		}
	}
}

// Done reports that no later candidate can change the answer: a LinkedIn
// match was found, or a name match when the query has no LinkedIn URL.
func (f *Finder) Done() bool {
	return f.bestBy == MatchedByLinkedin || (f.bestBy != "" && f.q.LinkedinURL == "")
}

// Answer is the enrichment for what was seen.
func (f *Finder) Answer() Enrichment {
	if f.best == nil {
		return Enrichment{Provider: ProviderContacts}
	}
	return Enrichment{Matched: true, MatchedBy: f.bestBy, Provider: ProviderContacts, Person: PersonOf(*f.best)}
}
