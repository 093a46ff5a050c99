package gifting

import "time"

// Contact is a contact as the areas not yet moved into slices read it: the
// audience build matches it, a recipient's details are taken from it, the
// launch writes recipients of it. The contact slice's own type, and its
// rules, are shared/contact's; storage's bridge gives contacts in this
// shape (dynamo/contacts_bridge.go). The JSON names are the API's, which
// tests decode answers with.
type Contact struct {
	ContactID      string            `json:"contactId"`
	OrganizationID string            `json:"organizationId"`
	MailID         string            `json:"mailId"`
	IsDeleted      bool              `json:"isDeleted"`
	CreatedAt      time.Time         `json:"createdAt"`
	UpdatedAt      time.Time         `json:"updatedAt"`
	ListIDs        []string          `json:"listIds"`
	PhoneNumber    string            `json:"phoneNumber"`
	FirstName      string            `json:"firstName"`
	LastName       string            `json:"lastName"`
	FullName       string            `json:"fullName"`
	JobTitle       string            `json:"jobTitle"`
	CompanyName    string            `json:"companyName"`
	CompanyID      string            `json:"companyId"`
	LinkedinURL    string            `json:"linkedinUrl"`
	ProfileImage   string            `json:"profileImage"`
	Locale         string            `json:"locale,omitempty"`
	Notes          string            `json:"notes"`
	Tags           []Tag             `json:"tags"`
	Address        Address           `json:"address"`
	Emails         []EmailEntry      `json:"emails"`
	Addresses      []AddressEntry    `json:"addresses"`
	Sources        []Source          `json:"sources"`
	Usage          Usage             `json:"usage"`
	Campaigns      []ContactCampaign `json:"campaigns"`
}

// Tag is a stored tag: a name and a hex colour.
type Tag struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// Address is a postal address.
type Address struct {
	Line1   string `json:"line1"`
	Line2   string `json:"line2,omitempty"`
	City    string `json:"city"`
	State   string `json:"state"`
	Country string `json:"country"`
	Zip     string `json:"zip"`
}

// IsZero reports whether no field of the address is set.
func (a Address) IsZero() bool { return a == Address{} }

// SourceRef says where an email or address entry came from.
type SourceRef struct {
	Type    string    `json:"type"`
	AddedAt time.Time `json:"addedAt"`
}

// EmailEntry is one email address of a contact.
type EmailEntry struct {
	Email      string    `json:"email"`
	IsPrimary  bool      `json:"isPrimary"`
	IsVerified bool      `json:"isVerified"`
	Source     SourceRef `json:"source"`
	AddedAt    time.Time `json:"addedAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

// AddressEntry is one postal address of a contact.
type AddressEntry struct {
	Address
	Type       string    `json:"type"`
	IsPrimary  bool      `json:"isPrimary"`
	IsVerified bool      `json:"isVerified"`
	Source     SourceRef `json:"source"`
	AddedAt    time.Time `json:"addedAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
}

// Source is one way a contact reached the organization (an import, a
// campaign's add-recipient, an API call).
type Source struct {
	Type     string    `json:"type"`
	Provider string    `json:"provider"`
	AddedAt  time.Time `json:"addedAt"`
}

// Usage lists the campaigns a contact takes part in.
type Usage struct {
	CampaignIDs []string `json:"campaignIds"`
}

// ContactCampaign is a campaign a contact takes part in, as shown on the
// contact: the campaign's name and its recipient's status when the contact
// joined it (added by add-recipient or by the launch), neither updated
// afterwards.
type ContactCampaign struct {
	CampaignID   string `json:"campaignId"`
	CampaignName string `json:"campaignName"`
	Status       string `json:"status"`
}

// ContactList is a contact list as the areas not yet moved read it: the
// campaign checks and the audience copy, which answers with it (the
// contact slice's own type is contact.List).
type ContactList struct {
	ListID         string    `json:"listId"`
	OrganizationID string    `json:"organizationId"`
	Name           string    `json:"name"`
	Description    string    `json:"description"`
	ContactCount   int64     `json:"contactCount"`
	CreatedBy      string    `json:"createdBy"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// ContactInput is the contact add-recipient names (contactDetails),
// validated and normalized by the contact slice (contact.Input.Validate)
// before it is carried in AddRecipientInput.
type ContactInput struct {
	MailID       string
	FirstName    string
	LastName     string
	FullName     string
	CompanyName  string
	JobTitle     string
	PhoneNumber  string
	LinkedinURL  string
	ProfileImage string
	Locale       string
	Tags         []string
	Address      Address
	// Campaign, when set, is added (once) to the contact's campaigns.
	Campaign *ContactCampaign
}

// SourceCampaign is the source type add-recipient records on a contact.
const SourceCampaign = "campaign"
