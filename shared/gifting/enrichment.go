package gifting

import (
	"context"
	"strings"
)

// Enricher finds what is known about a person. Providers plug in behind it;
// the default one answers from the organization's own contacts.
type Enricher interface {
	// Enrich looks the person up for org. No match is a normal answer
	// (Matched false), not an error.
	Enrich(ctx context.Context, orgID string, q EnrichmentQuery) (Enrichment, error)
}

// EnrichmentQuery is who to look up: a LinkedIn URL, or a name and company.
type EnrichmentQuery struct {
	FirstName   string `json:"firstname"`
	LastName    string `json:"lastname"`
	CompanyName string `json:"company_name"`
	LinkedinURL string `json:"linkedin_url"`
}

// Validate trims the query and checks it names someone: a LinkedIn URL, or
// first name, last name and company.
func (q *EnrichmentQuery) Validate() error {
	var p Problems
	for _, f := range []struct {
		name string
		v    *string
	}{{"firstname", &q.FirstName}, {"lastname", &q.LastName}, {"company_name", &q.CompanyName}, {"linkedin_url", &q.LinkedinURL}} {
		*f.v = strings.TrimSpace(*f.v)
		if tooLong(*f.v, maxURLLen) {
			p.Add(f.name, "is too long")
		}
	}
	if q.LinkedinURL != "" && !ValidURL(q.LinkedinURL) {
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

// How an enrichment matched.
const (
	MatchedByLinkedin    = "linkedin_url"
	MatchedByNameCompany = "name_company"
)

// Enrichment is the answer of an Enricher.
type Enrichment struct {
	Matched bool `json:"matched"`
	// MatchedBy is MatchedByLinkedin or MatchedByNameCompany; empty when
	// nothing matched.
	MatchedBy string `json:"matchedBy,omitempty"`
	// Provider names who answered.
	Provider string `json:"provider"`
	// Person is nil when nothing matched.
	Person *EnrichedPerson `json:"person"`
}

// EnrichedPerson is what is known about the person, in the field style of
// the enrichment request.
type EnrichedPerson struct {
	ContactID    string  `json:"contact_id,omitempty"`
	FirstName    string  `json:"firstname"`
	LastName     string  `json:"lastname"`
	FullName     string  `json:"full_name"`
	Email        string  `json:"email"`
	CompanyName  string  `json:"company_name"`
	JobTitle     string  `json:"job_title"`
	PhoneNumber  string  `json:"phone_number"`
	LinkedinURL  string  `json:"linkedin_url"`
	ProfileImage string  `json:"profile_image"`
	Address      Address `json:"address"`
}

// PersonFromContact is the enrichment view of a contact.
func PersonFromContact(c Contact) *EnrichedPerson {
	return &EnrichedPerson{
		ContactID: c.ContactID, FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName,
		Email: c.MailID, CompanyName: c.CompanyName, JobTitle: c.JobTitle, PhoneNumber: c.PhoneNumber,
		LinkedinURL: c.LinkedinURL, ProfileImage: c.ProfileImage, Address: c.Address,
	}
}

// MatchContact says how c matches q: by LinkedIn URL (compared as
// LinkedinKey), else by first name, last name and company
// (case-insensitively); "" when it does not.
func MatchContact(c Contact, q EnrichmentQuery) string {
	if q.LinkedinURL != "" && LinkedinKey(c.LinkedinURL) == LinkedinKey(q.LinkedinURL) {
		return MatchedByLinkedin
	}
	if q.FirstName != "" && q.LastName != "" && q.CompanyName != "" &&
		strings.EqualFold(c.FirstName, q.FirstName) && strings.EqualFold(c.LastName, q.LastName) &&
		strings.EqualFold(c.CompanyName, q.CompanyName) {
		return MatchedByNameCompany
	}
	return ""
}
