// Package contact is the contact slice: an organization's contacts (one
// per lower-cased email address, mailId), its contact lists and their
// members, the bulk add that creates contacts or merges them into the ones
// with the same email and makes them members of a list, and enrichment
// from the organization's own contacts.
//
// It holds the slice's domain types (no JSON or attribute tags: the API's
// shape is shared/httpapi's, the stored item shared/dynamo's), its pure
// decisions (Input.Validate, Upsert and Merge, Join and Leave, Patch.Apply,
// Deleted, the list rules, SelectLists, Match: state in, the contact or
// list to write or the domain error out), the port it needs of storage
// (Store, with the outcomes storage reports) and its application layer
// (App: load → decide → commit, deciding again when another write moved
// what it decided from). Storage implements Store and imports this package
// for its types and outcomes, never App (TestStorageDecidesNothing keeps
// it so).
//
// The areas not yet moved into slices read contacts in gifting's shapes
// through storage's bridge (dynamo/contacts_bridge.go): the launch
// (members and their contacts), add-recipient's contact write, the
// audience build and its copy into a contact list, campaign checks of a
// list.
package contact

import "time"

// Contact is a contact of an organization (docs/resources.md). One contact
// exists per organization and lower-cased email address (MailID).
type Contact struct {
	ContactID      string
	OrganizationID string
	MailID         string
	IsDeleted      bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
	// ListIDs are the lists the contact is a member of, in the order it
	// joined them.
	ListIDs      []string
	PhoneNumber  string
	FirstName    string
	LastName     string
	FullName     string
	JobTitle     string
	CompanyName  string
	CompanyID    string
	LinkedinURL  string
	ProfileImage string
	Locale       string
	Notes        string
	Tags         []Tag
	Address      Address
	Emails       []EmailEntry
	Addresses    []AddressEntry
	Sources      []Source
	Usage        Usage
	Campaigns    []Campaign
	// Stored is storage's: see Stored.
	Stored Stored
}

// Stored is how storage keeps a contact: set by storage when it loads one
// (or names the id a new contact for an email takes), carried unchanged
// by the slice's decisions from the contact they start from to the one
// they return, and read by storage when it commits that one. The slice
// never looks inside; a commit is conditioned on it (ErrChanged when the
// stored contact moved on).
type Stored struct {
	// Version counts the contact's writes.
	Version int64
	// Place is the contact's place in storage's list index, "" for a
	// contact stored before it had one.
	Place string
	// Holder names the contact whose email this contact's item also
	// stands for, "" for none.
	Holder string
	// Search names the search entries storage keeps for the contact as
	// read (its token and lookup entries), "" for none yet.
	Search string
	// Words is the search text the item held as read: the words its
	// word entries were written with, which only storage reads.
	Words string
}

// Tag is a contact's tag: a name and a hex colour (TagColor).
type Tag struct {
	Name  string
	Color string
}

// Address is a postal address.
type Address struct {
	Line1   string
	Line2   string
	City    string
	State   string
	Country string
	Zip     string
}

// IsZero reports whether no field of the address is set.
func (a Address) IsZero() bool { return a == Address{} }

// SourceRef says where an email or address entry came from.
type SourceRef struct {
	Type    string
	AddedAt time.Time
}

// EmailEntry is one email address of a contact.
type EmailEntry struct {
	Email      string
	IsPrimary  bool
	IsVerified bool
	Source     SourceRef
	AddedAt    time.Time
	UpdatedAt  time.Time
}

// AddressEntry is one postal address of a contact.
type AddressEntry struct {
	Address
	Type       string
	IsPrimary  bool
	IsVerified bool
	Source     SourceRef
	AddedAt    time.Time
	UpdatedAt  time.Time
}

// Source is one way a contact reached the organization (an import, a
// campaign's add-recipient, an API call).
type Source struct {
	Type     string
	Provider string
	AddedAt  time.Time
}

// Usage lists the campaigns a contact takes part in.
type Usage struct {
	CampaignIDs []string
}

// Campaign is a campaign a contact takes part in, as shown on the contact:
// the campaign's name and its recipient's status when the contact joined
// it (added by add-recipient or by the launch), neither updated
// afterwards.
type Campaign struct {
	CampaignID   string
	CampaignName string
	Status       string
}

// List is a named set of contacts of an organization. ContactCount moves
// with every membership change (the bulk add's once a chunk, after its
// writes), so it trails the members only while an import runs.
type List struct {
	ListID         string
	OrganizationID string
	Name           string
	Description    string
	ContactCount   int64
	CreatedBy      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Source types, and the provider of contacts added through this API.
const (
	SourceImport    = "import"
	SourceAPI       = "api"
	SourceCampaign  = "campaign"
	ProviderAPI     = "api"
	AddressTypeShip = "shipping"
)

// Bounds of what one contact holds.
const (
	// MaxSources bounds the sources kept on a contact: the first one (how
	// the contact came) and the most recent others.
	MaxSources = 20
	// MaxCampaigns bounds the campaigns a contact shows (usage and
	// campaigns): each one adds 100 to 900 bytes to the stored contact
	// (the campaign's name is up to 200 characters), so the item stays
	// well under DynamoDB's 400 KB whatever the names. A contact in more
	// campaigns is still their recipient; it does not show the later
	// ones.
	MaxCampaigns = 300
	// MaxLists bounds the lists one contact can belong to, so that
	// deleting the contact (which leaves every list in the same
	// transaction) fits in one transaction of at most 100 items.
	MaxLists = 40
)

// JobListDelete is the job kind that removes a deleted contact list's
// memberships, a slice at a time (App.RunListDelete). The list's
// tombstone is due under it, so the scheduler tick finishes the work when
// the job's message is lost.
const JobListDelete = "contactlist.delete"
