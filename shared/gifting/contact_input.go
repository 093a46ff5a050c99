package gifting

import (
	"hash/fnv"
	"slices"
	"strings"
	"time"
)

// ContactInput is a contact as a caller submits it: one entry of a bulk add
// to a list, or the contactDetails of add-recipient. Validate normalizes it
// (trims, lower-cases the email) before it is stored or merged.
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
	// Tags are tag names; the stored contact gets {name, color} with a
	// colour that depends only on the name.
	Tags    []string
	Address Address
	// Campaign, when set, is added (once) to the contact's usage.campaignIds
	// and campaigns.
	Campaign *ContactCampaign
}

// Limits of a contact's fields.
const (
	maxNameLen    = 200
	maxTagLen     = 50
	maxTags       = 50
	maxPhoneLen   = 40
	maxURLLen     = 2048
	maxAddressLen = 200
	// MaxSources bounds the sources kept on a contact: the first one (how
	// the contact came) and the most recent others.
	MaxSources = 20
)

// Validate normalizes the input in place and reports every problem by JSON
// field name (VALIDATION_FAILED). mailId is required and must be an email
// address; it is lower-cased, the form contacts are matched by.
func (in *ContactInput) Validate() error {
	var p Problems
	if strings.TrimSpace(in.MailID) == "" {
		p.Add("mailId", "is required")
	} else if email, ok := NormalizeEmail(in.MailID); ok {
		in.MailID = email
	} else {
		p.Add("mailId", "is not a valid email address")
	}
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{
		{"firstName", &in.FirstName, maxNameLen},
		{"lastName", &in.LastName, maxNameLen},
		{"fullName", &in.FullName, 2*maxNameLen + 1},
		{"companyName", &in.CompanyName, maxNameLen},
		{"jobTitle", &in.JobTitle, maxNameLen},
		{"phoneNumber", &in.PhoneNumber, maxPhoneLen},
		{"linkedinUrl", &in.LinkedinURL, maxURLLen},
		{"profileImage", &in.ProfileImage, maxURLLen},
	} {
		*f.v = strings.TrimSpace(*f.v)
		p.AtMost(f.name, *f.v, f.max)
	}
	if in.LinkedinURL != "" && !ValidURL(in.LinkedinURL) {
		p.Add("linkedinUrl", "must be an http(s) URL")
	}
	if in.ProfileImage != "" && !ValidURL(in.ProfileImage) {
		p.Add("profileImage", "must be an http(s) URL")
	}
	if in.FullName == "" {
		in.FullName = strings.TrimSpace(in.FirstName + " " + in.LastName)
	}
	in.Tags = normalizeTags(in.Tags, &p)
	a := &in.Address
	for _, f := range []*string{&a.Line1, &a.Line2, &a.City, &a.State, &a.Country, &a.Zip} {
		*f = strings.TrimSpace(*f)
		if tooLong(*f, maxAddressLen) {
			p.Add("address", "fields must be at most "+itoa(maxAddressLen)+" characters")
		}
	}
	return p.Err()
}

// normalizeTags trims tag names and drops empty and repeated ones (compared
// case-insensitively, keeping the first spelling).
func normalizeTags(tags []string, p *Problems) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range tags {
		t = strings.TrimSpace(t)
		k := strings.ToLower(t)
		if t == "" || seen[k] {
			continue
		}
		if tooLong(t, maxTagLen) {
			p.Add("tags", "each tag must be at most "+itoa(maxTagLen)+" characters")
			continue
		}
		seen[k] = true
		out = append(out, t)
	}
	if len(out) > maxTags {
		p.Add("tags", "at most "+itoa(maxTags)+" tags")
	}
	return out
}

// tagPalette holds the colours tags are given.
var tagPalette = []string{
	"#e53935", "#d81b60", "#8e24aa", "#5e35b1", "#3949ab", "#1e88e5",
	"#039be5", "#00897b", "#43a047", "#7cb342", "#f4511e", "#6d4c41",
}

// TagColor is the colour of a tag name. It depends only on the name
// (case-insensitively), so a tag looks the same on every contact.
func TagColor(name string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(strings.ToLower(name)))
	return tagPalette[h.Sum32()%uint32(len(tagPalette))]
}

// Source types and the provider of contacts added through this API.
const (
	SourceImport    = "import"
	SourceAPI       = "api"
	SourceCampaign  = "campaign"
	ProviderAPI     = "api"
	AddressTypeShip = "shipping"
)

// NewContact builds the stored record of a new contact from validated input.
func NewContact(id, orgID string, in ContactInput, src Source, now time.Time) Contact {
	ref := SourceRef{Type: src.Type, AddedAt: now}
	c := Contact{
		ContactID: id, OrganizationID: orgID, MailID: in.MailID, CreatedAt: now, UpdatedAt: now,
		ListIDs: []string{}, Tags: []Tag{}, Addresses: []AddressEntry{},
		Emails:  []EmailEntry{{Email: in.MailID, IsPrimary: true, Source: ref, AddedAt: now, UpdatedAt: now}},
		Sources: []Source{}, Usage: Usage{CampaignIDs: []string{}}, Campaigns: []ContactCampaign{},
	}
	c.Merge(in, src, now)
	return c
}

// Merge folds input for the same email into the contact: empty fields are
// filled (a full name made of first and last name follows them), tags are
// united, a new address is added (as the primary one when
// the contact had none), the campaign is added once, and src (unless its
// type is empty) is recorded. Fields the contact already has are kept.
func (c *Contact) Merge(in ContactInput, src Source, now time.Time) {
	// A full name that is only "first last" follows the names as they are
	// filled in; one given on its own is kept.
	derived := c.FullName != "" && c.FullName == strings.TrimSpace(c.FirstName+" "+c.LastName)
	for _, f := range []struct {
		dst *string
		v   string
	}{
		{&c.FirstName, in.FirstName}, {&c.LastName, in.LastName}, {&c.FullName, in.FullName},
		{&c.CompanyName, in.CompanyName}, {&c.JobTitle, in.JobTitle}, {&c.PhoneNumber, in.PhoneNumber},
		{&c.LinkedinURL, in.LinkedinURL}, {&c.ProfileImage, in.ProfileImage},
	} {
		if *f.dst == "" {
			*f.dst = f.v
		}
	}
	if derived {
		c.FullName = strings.TrimSpace(c.FirstName + " " + c.LastName)
	}
	for _, t := range in.Tags {
		if !c.HasTag(t) {
			c.Tags = append(c.Tags, Tag{Name: t, Color: TagColor(t)})
		}
	}
	if !in.Address.IsZero() {
		c.addAddress(in.Address, src.Type, now)
	}
	if in.Campaign != nil {
		c.AddCampaign(*in.Campaign)
	}
	if src.Type != "" {
		if src.AddedAt.IsZero() {
			src.AddedAt = now
		}
		c.Sources = append(c.Sources, src)
		if len(c.Sources) > MaxSources {
			c.Sources = append(c.Sources[:1], c.Sources[len(c.Sources)-MaxSources+1:]...)
		}
	}
	c.UpdatedAt = now
}

// HasTag reports whether the contact has a tag of that name
// (case-insensitively).
func (c *Contact) HasTag(name string) bool {
	for _, t := range c.Tags {
		if strings.EqualFold(t.Name, name) {
			return true
		}
	}
	return false
}

// addAddress records a: as the contact's address and primary entry when it
// has none, else as another entry unless it is already known.
func (c *Contact) addAddress(a Address, srcType string, now time.Time) {
	for _, e := range c.Addresses {
		if e.Address == a {
			return
		}
	}
	primary := c.Address.IsZero()
	if primary {
		c.Address = a
	}
	if srcType == "" {
		srcType = SourceImport
	}
	c.Addresses = append(c.Addresses, AddressEntry{
		Address: a, Type: AddressTypeShip, IsPrimary: primary,
		Source: SourceRef{Type: srcType, AddedAt: now}, AddedAt: now, UpdatedAt: now,
	})
}

// MaxContactCampaigns bounds the campaigns a contact shows (usage and
// campaigns): each one adds 100 to 900 bytes to the stored contact (the
// campaign's name is up to 200 characters), so the item stays well under
// DynamoDB's 400 KB whatever the names. A contact in more campaigns is
// still their recipient; it does not show the later ones.
const MaxContactCampaigns = 300

// AddCampaign records that the contact takes part in a campaign, once, and
// only while it shows fewer than MaxContactCampaigns. cc.Status is the
// status of the contact's recipient when it joined the campaign; it is not
// updated afterwards (the recipient holds the current one).
func (c *Contact) AddCampaign(cc ContactCampaign) {
	if len(c.Usage.CampaignIDs) >= MaxContactCampaigns {
		return
	}
	for _, id := range c.Usage.CampaignIDs {
		if id == cc.CampaignID {
			return
		}
	}
	c.Usage.CampaignIDs = append(c.Usage.CampaignIDs, cc.CampaignID)
	c.Campaigns = append(c.Campaigns, cc)
}

// InList reports whether the contact belongs to list listID.
func (c *Contact) InList(listID string) bool {
	for _, id := range c.ListIDs {
		if id == listID {
			return true
		}
	}
	return false
}

// SearchText is what free-text search matches: the lower-cased names, email
// and company.
func (c *Contact) SearchText() string {
	parts := []string{c.FirstName, c.LastName}
	if full := strings.TrimSpace(c.FirstName + " " + c.LastName); !strings.EqualFold(full, c.FullName) {
		parts = append(parts, c.FullName)
	}
	parts = append(parts, c.MailID, c.CompanyName)
	return strings.ToLower(strings.Join(parts, " "))
}

// Normalize replaces nil collections by empty ones, so a contact read back
// from storage (where empty values are not kept) shows [] rather than null.
func (c *Contact) Normalize() {
	if c.ListIDs == nil {
		c.ListIDs = []string{}
	}
	if c.Tags == nil {
		c.Tags = []Tag{}
	}
	if c.Emails == nil {
		c.Emails = []EmailEntry{}
	}
	if c.Addresses == nil {
		c.Addresses = []AddressEntry{}
	}
	if c.Sources == nil {
		c.Sources = []Source{}
	}
	if c.Usage.CampaignIDs == nil {
		c.Usage.CampaignIDs = []string{}
	}
	if c.Campaigns == nil {
		c.Campaigns = []ContactCampaign{}
	}
}

// ContactList is a named set of contacts of an organization. ContactCount is
// kept in the same transaction as every membership change, so it is exact.
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

// ValidateContactList normalizes and checks the fields a caller sets on a
// contact list.
func ValidateContactList(name, description *string) error {
	var p Problems
	*name, *description = strings.TrimSpace(*name), strings.TrimSpace(*description)
	if *name == "" {
		p.Add("name", "is required")
	} else if tooLong(*name, maxNameLen) {
		p.Add("name", "must be at most "+itoa(maxNameLen)+" characters")
	}
	if tooLong(*description, 2000) {
		p.Add("description", "must be at most 2000 characters")
	}
	return p.Err()
}

// LinkedinKey is the form LinkedIn URLs are matched by: lower-cased, without
// scheme, "www." or a trailing slash, query or fragment
// ("linkedin.com/in/jane-doe"). It is "" for an empty URL.
func LinkedinKey(u string) string {
	u = strings.ToLower(strings.TrimSpace(u))
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	u = strings.TrimPrefix(u, "www.")
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return strings.TrimRight(u, "/")
}

// Absorb folds a later input for the same email into in, as Merge folds
// an input into a stored contact: empty fields are filled (a full name made
// of first and last name follows them), tags united, and the address taken
// when in has none. It fails (VALIDATION_FAILED on tags), changing nothing,
// when the united tags would be more than a contact may have.
func (in *ContactInput) Absorb(o ContactInput) error {
	have := func(t string) bool {
		return slices.ContainsFunc(in.Tags, func(x string) bool { return strings.EqualFold(x, t) })
	}
	if err := tagsFit(len(in.Tags), have, o.Tags); err != nil {
		return err
	}
	derived := in.FullName != "" && in.FullName == strings.TrimSpace(in.FirstName+" "+in.LastName)
	for _, f := range []struct {
		dst *string
		v   string
	}{
		{&in.FirstName, o.FirstName}, {&in.LastName, o.LastName}, {&in.FullName, o.FullName},
		{&in.CompanyName, o.CompanyName}, {&in.JobTitle, o.JobTitle}, {&in.PhoneNumber, o.PhoneNumber},
		{&in.LinkedinURL, o.LinkedinURL}, {&in.ProfileImage, o.ProfileImage},
	} {
		if *f.dst == "" {
			*f.dst = f.v
		}
	}
	if derived {
		in.FullName = strings.TrimSpace(in.FirstName + " " + in.LastName)
	}
	for _, t := range o.Tags {
		if !have(t) {
			in.Tags = append(in.Tags, t)
		}
	}
	if in.Address.IsZero() {
		in.Address = o.Address
	}
	if in.Campaign == nil {
		in.Campaign = o.Campaign
	}
	return nil
}

// TagsFit reports VALIDATION_FAILED on tags when merging in into the
// contact would give it more tags than a contact may have (tags it already
// has, in any case, do not count twice).
func (c *Contact) TagsFit(in ContactInput) error {
	return tagsFit(len(c.Tags), c.HasTag, in.Tags)
}

// tagsFit reports VALIDATION_FAILED on tags when n tags (has tells which)
// united with add would be more than maxTags.
func tagsFit(n int, has func(string) bool, add []string) error {
	seen := map[string]bool{}
	for _, t := range add {
		if k := strings.ToLower(t); !seen[k] && !has(t) {
			seen[k] = true
			n++
		}
	}
	if n <= maxTags {
		return nil
	}
	var p Problems
	p.Add("tags", "merging would give the contact "+itoa(n)+" tags; a contact has at most "+itoa(maxTags))
	return p.Err()
}
