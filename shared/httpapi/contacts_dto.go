package httpapi

import (
	"time"

	"github.com/giftcampaign/service/shared/contact"
)

// The contact slice's shapes on the wire (the OpenAPI schemas Contact,
// ContactList, the bulk add's results and the enrichment), converted to
// and from the slice's types. A contact's collections are never null: an
// empty one is [].

// contactDTO is a contact as the API answers it.
type contactDTO struct {
	ContactID      string               `json:"contactId"`
	OrganizationID string               `json:"organizationId"`
	MailID         string               `json:"mailId"`
	IsDeleted      bool                 `json:"isDeleted"`
	CreatedAt      time.Time            `json:"createdAt"`
	UpdatedAt      time.Time            `json:"updatedAt"`
	ListIDs        []string             `json:"listIds"`
	PhoneNumber    string               `json:"phoneNumber"`
	FirstName      string               `json:"firstName"`
	LastName       string               `json:"lastName"`
	FullName       string               `json:"fullName"`
	JobTitle       string               `json:"jobTitle"`
	CompanyName    string               `json:"companyName"`
	CompanyID      string               `json:"companyId"`
	LinkedinURL    string               `json:"linkedinUrl"`
	ProfileImage   string               `json:"profileImage"`
	Locale         string               `json:"locale,omitempty"`
	Notes          string               `json:"notes"`
	Tags           []tagDTO             `json:"tags"`
	Address        addressDTO           `json:"address"`
	Emails         []emailEntryDTO      `json:"emails"`
	Addresses      []addressEntryDTO    `json:"addresses"`
	Sources        []sourceDTO          `json:"sources"`
	Usage          usageDTO             `json:"usage"`
	Campaigns      []contactCampaignDTO `json:"campaigns"`
}

type tagDTO struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// addressDTO is a contact's postal address (the OpenAPI schema Address).
type addressDTO struct {
	Line1   string `json:"line1"`
	Line2   string `json:"line2,omitempty"`
	City    string `json:"city"`
	State   string `json:"state"`
	Country string `json:"country"`
	Zip     string `json:"zip"`
}

type sourceRefDTO struct {
	Type    string    `json:"type"`
	AddedAt time.Time `json:"addedAt"`
}

type emailEntryDTO struct {
	Email      string       `json:"email"`
	IsPrimary  bool         `json:"isPrimary"`
	IsVerified bool         `json:"isVerified"`
	Source     sourceRefDTO `json:"source"`
	AddedAt    time.Time    `json:"addedAt"`
	UpdatedAt  time.Time    `json:"updatedAt"`
}

// addressEntryDTO carries the address's fields at its own level.
type addressEntryDTO struct {
	addressDTO
	Type       string       `json:"type"`
	IsPrimary  bool         `json:"isPrimary"`
	IsVerified bool         `json:"isVerified"`
	Source     sourceRefDTO `json:"source"`
	AddedAt    time.Time    `json:"addedAt"`
	UpdatedAt  time.Time    `json:"updatedAt"`
}

type sourceDTO struct {
	Type     string    `json:"type"`
	Provider string    `json:"provider"`
	AddedAt  time.Time `json:"addedAt"`
}

type usageDTO struct {
	CampaignIDs []string `json:"campaignIds"`
}

type contactCampaignDTO struct {
	CampaignID   string `json:"campaignId"`
	CampaignName string `json:"campaignName"`
	Status       string `json:"status"`
}

func toContactDTO(c contact.Contact) contactDTO {
	return contactDTO{
		ContactID: c.ContactID, OrganizationID: c.OrganizationID, MailID: c.MailID, IsDeleted: c.IsDeleted,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, ListIDs: convert(c.ListIDs, func(id string) string { return id }),
		PhoneNumber: c.PhoneNumber, FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName,
		JobTitle: c.JobTitle, CompanyName: c.CompanyName, CompanyID: c.CompanyID, LinkedinURL: c.LinkedinURL,
		ProfileImage: c.ProfileImage, Locale: c.Locale, Notes: c.Notes, Address: addressDTO(c.Address),
		Usage:     usageDTO{CampaignIDs: convert(c.Usage.CampaignIDs, func(id string) string { return id })},
		Tags:      convert(c.Tags, func(t contact.Tag) tagDTO { return tagDTO(t) }),
		Sources:   convert(c.Sources, func(s contact.Source) sourceDTO { return sourceDTO(s) }),
		Campaigns: convert(c.Campaigns, func(cc contact.Campaign) contactCampaignDTO { return contactCampaignDTO(cc) }),
		Emails: convert(c.Emails, func(e contact.EmailEntry) emailEntryDTO {
			return emailEntryDTO{Email: e.Email, IsPrimary: e.IsPrimary, IsVerified: e.IsVerified,
				Source: sourceRefDTO(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
		Addresses: convert(c.Addresses, func(e contact.AddressEntry) addressEntryDTO {
			return addressEntryDTO{addressDTO: addressDTO(e.Address), Type: e.Type, IsPrimary: e.IsPrimary,
				IsVerified: e.IsVerified, Source: sourceRefDTO(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
	}
}

// convert is in with f applied to each element, never nil.
func convert[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// contactPatchBody is the body of PATCH /contacts/{contactId}: the fields
// sent are changed, the others kept.
type contactPatchBody struct {
	MailID       *string     `json:"mailId"`
	FirstName    *string     `json:"firstName"`
	LastName     *string     `json:"lastName"`
	FullName     *string     `json:"fullName"`
	CompanyName  *string     `json:"companyName"`
	CompanyID    *string     `json:"companyId"`
	JobTitle     *string     `json:"jobTitle"`
	PhoneNumber  *string     `json:"phoneNumber"`
	LinkedinURL  *string     `json:"linkedinUrl"`
	ProfileImage *string     `json:"profileImage"`
	Locale       *string     `json:"locale"`
	Notes        *string     `json:"notes"`
	Tags         []string    `json:"tags"`
	Address      *addressDTO `json:"address"`
}

func (b contactPatchBody) patch() contact.Patch {
	return contact.Patch{
		MailID: b.MailID, FirstName: b.FirstName, LastName: b.LastName, FullName: b.FullName,
		CompanyName: b.CompanyName, CompanyID: b.CompanyID, JobTitle: b.JobTitle, PhoneNumber: b.PhoneNumber,
		LinkedinURL: b.LinkedinURL, ProfileImage: b.ProfileImage, Locale: b.Locale, Notes: b.Notes, Tags: b.Tags,
		Address: (*contact.Address)(b.Address),
	}
}

// contactListDTO is a contact list as the API answers it.
type contactListDTO struct {
	ListID         string    `json:"listId"`
	OrganizationID string    `json:"organizationId"`
	Name           string    `json:"name"`
	Description    string    `json:"description"`
	ContactCount   int64     `json:"contactCount"`
	CreatedBy      string    `json:"createdBy"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

func toContactListDTO(l contact.List) contactListDTO { return contactListDTO(l) }

// newContactListBody is the body of POST /contact-lists.
type newContactListBody struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// contactListPatchBody is the body of PATCH /contact-lists/{listId}.
type contactListPatchBody struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

// bulkResultDTO is a bulk add's outcome, item by item, with totals per
// status.
type bulkResultDTO struct {
	Items     []bulkItemDTO `json:"results"`
	Created   int           `json:"created"`
	Merged    int           `json:"merged"`
	Added     int           `json:"added"`
	Unchanged int           `json:"unchanged"`
	Failed    int           `json:"failed"`
}

type bulkItemDTO struct {
	Index     int               `json:"index"`
	Status    string            `json:"status"`
	ContactID string            `json:"contactId,omitempty"`
	MailID    string            `json:"mailId,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	Details   map[string]string `json:"details,omitempty"`
}

func toBulkResultDTO(r contact.BulkResult) bulkResultDTO {
	var items []bulkItemDTO
	if r.Items != nil {
		items = convert(r.Items, func(it contact.Item) bulkItemDTO { return bulkItemDTO(it) })
	}
	return bulkResultDTO{Items: items, Created: r.Created, Merged: r.Merged, Added: r.Added,
		Unchanged: r.Unchanged, Failed: r.Failed}
}

// enrichmentQueryBody is the body of POST /enrichment/enrich.
type enrichmentQueryBody struct {
	FirstName   string `json:"firstname"`
	LastName    string `json:"lastname"`
	CompanyName string `json:"company_name"`
	LinkedinURL string `json:"linkedin_url"`
}

// enrichmentDTO is an enrichment as the API answers it.
type enrichmentDTO struct {
	Matched   bool       `json:"matched"`
	MatchedBy string     `json:"matchedBy,omitempty"`
	Provider  string     `json:"provider"`
	Person    *personDTO `json:"person"`
}

// personDTO is the person an enrichment found, in the field style of the
// enrichment request.
type personDTO struct {
	ContactID    string     `json:"contact_id,omitempty"`
	FirstName    string     `json:"firstname"`
	LastName     string     `json:"lastname"`
	FullName     string     `json:"full_name"`
	Email        string     `json:"email"`
	CompanyName  string     `json:"company_name"`
	JobTitle     string     `json:"job_title"`
	PhoneNumber  string     `json:"phone_number"`
	LinkedinURL  string     `json:"linkedin_url"`
	ProfileImage string     `json:"profile_image"`
	Address      addressDTO `json:"address"`
}

func toEnrichmentDTO(e contact.Enrichment) enrichmentDTO {
	out := enrichmentDTO{Matched: e.Matched, MatchedBy: e.MatchedBy, Provider: e.Provider}
	if p := e.Person; p != nil {
		out.Person = &personDTO{
			ContactID: p.ContactID, FirstName: p.FirstName, LastName: p.LastName, FullName: p.FullName,
			Email: p.Email, CompanyName: p.CompanyName, JobTitle: p.JobTitle, PhoneNumber: p.PhoneNumber,
			LinkedinURL: p.LinkedinURL, ProfileImage: p.ProfileImage, Address: addressDTO(p.Address),
		}
	}
	return out
}
