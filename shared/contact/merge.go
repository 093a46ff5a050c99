package contact

import (
	"slices"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// New builds a new contact from validated input: id and stored are what
// storage named for the input's email (Holding), src says how it came.
func New(id, orgID string, stored Stored, in Input, src Source, now time.Time) Contact {
	ref := SourceRef{Type: src.Type, AddedAt: now}
	c := Contact{
		ContactID: id, OrganizationID: orgID, MailID: in.MailID, CreatedAt: now, UpdatedAt: now,
		ListIDs: []string{}, Tags: []Tag{}, Addresses: []AddressEntry{},
		Emails:  []EmailEntry{{Email: in.MailID, IsPrimary: true, Source: ref, AddedAt: now, UpdatedAt: now}},
		Sources: []Source{}, Usage: Usage{CampaignIDs: []string{}}, Campaigns: []Campaign{},
		Stored: stored,
	}
	c.Merge(in, src, now)
	return c
}

// Merge folds input for the same email into the contact: empty fields are
// filled (a full name made of first and last name follows them), tags are
// united, a new address is added (as the primary one when the contact had
// none), the campaign is added once, and src (unless its type is empty)
// is recorded. Fields the contact already has are kept. The caller checks
// TagsFit first.
func (c *Contact) Merge(in Input, src Source, now time.Time) {
	// A full name that is only "first last" follows the names as they are
	// filled in; one given on its own is kept.
	derived := c.FullName != "" && c.FullName == strings.TrimSpace(c.FirstName+" "+c.LastName)
	fillEmpty([]*string{&c.FirstName, &c.LastName, &c.FullName, &c.CompanyName, &c.JobTitle, &c.PhoneNumber,
		&c.LinkedinURL, &c.ProfileImage, &c.Locale},
		[]string{in.FirstName, in.LastName, in.FullName, in.CompanyName, in.JobTitle, in.PhoneNumber,
			in.LinkedinURL, in.ProfileImage, in.Locale})
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

// fillEmpty sets each empty *dst[i] to vals[i].
func fillEmpty(dst []*string, vals []string) {
	for i, d := range dst {
		if *d == "" {
			*d = vals[i]
		}
	}
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

// AddCampaign records that the contact takes part in a campaign, once, and
// only while it shows fewer than MaxCampaigns. cc.Status is the status of
// the contact's recipient when it joined the campaign; it is not updated
// afterwards (the recipient holds the current one).
func (c *Contact) AddCampaign(cc Campaign) {
	if len(c.Usage.CampaignIDs) >= MaxCampaigns || slices.Contains(c.Usage.CampaignIDs, cc.CampaignID) {
		return
	}
	c.Usage.CampaignIDs = append(c.Usage.CampaignIDs, cc.CampaignID)
	c.Campaigns = append(c.Campaigns, cc)
}

// InList reports whether the contact belongs to list listID.
func (c Contact) InList(listID string) bool { return slices.Contains(c.ListIDs, listID) }

// SearchText is what free-text search matches: the lower-cased names, email
// and company.
func (c Contact) SearchText() string {
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
	orEmpty(&c.ListIDs)
	orEmpty(&c.Tags)
	orEmpty(&c.Emails)
	orEmpty(&c.Addresses)
	orEmpty(&c.Sources)
	orEmpty(&c.Usage.CampaignIDs)
	orEmpty(&c.Campaigns)
}

func orEmpty[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}

// Absorb folds a later input for the same email into in, as Merge folds
// an input into a stored contact: empty fields are filled (a full name made
// of first and last name follows them), tags united, and the address taken
// when in has none. It fails (VALIDATION_FAILED on tags), changing nothing,
// when the united tags would be more than a contact may have.
func (in *Input) Absorb(o Input) error {
	have := func(t string) bool {
		return slices.ContainsFunc(in.Tags, func(x string) bool { return strings.EqualFold(x, t) })
	}
	if err := tagsFit(len(in.Tags), have, o.Tags); err != nil {
		return err
	}
	derived := in.FullName != "" && in.FullName == strings.TrimSpace(in.FirstName+" "+in.LastName)
	fillEmpty([]*string{&in.FirstName, &in.LastName, &in.FullName, &in.CompanyName, &in.JobTitle, &in.PhoneNumber,
		&in.LinkedinURL, &in.ProfileImage, &in.Locale},
		[]string{o.FirstName, o.LastName, o.FullName, o.CompanyName, o.JobTitle, o.PhoneNumber,
			o.LinkedinURL, o.ProfileImage, o.Locale})
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
func (c *Contact) TagsFit(in Input) error {
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
	var p gifting.Problems
	p.Add("tags", "merging would give the contact "+itoa(n)+" tags; a contact has at most "+itoa(maxTags))
	return p.Err()
}
