package contact

import (
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Patch is a partial update of a contact: nil fields are left as they
// are. Tags, when set, replace the contact's tags; Address, when set,
// replaces its address (and its primary address entry).
type Patch struct {
	MailID       *string
	FirstName    *string
	LastName     *string
	FullName     *string
	CompanyName  *string
	CompanyID    *string
	JobTitle     *string
	PhoneNumber  *string
	LinkedinURL  *string
	ProfileImage *string
	Locale       *string
	Notes        *string
	Tags         []string
	Address      *Address
}

// Apply validates the patch exactly as a new contact is validated and
// applies it to c. It returns VALIDATION_FAILED (leaving c unchanged) for
// bad values, including an empty or invalid mailId. A new mailId becomes
// the primary email entry (the previous one stays as a secondary entry);
// whether another contact has it is storage's to find (ErrEmailTaken).
func (p Patch) Apply(c *Contact, now time.Time) error {
	pick := func(v *string, cur string) string {
		if v != nil {
			return *v
		}
		return cur
	}
	in := Input{
		MailID: pick(p.MailID, c.MailID), FirstName: pick(p.FirstName, c.FirstName),
		LastName: pick(p.LastName, c.LastName), FullName: pick(p.FullName, c.FullName),
		CompanyName: pick(p.CompanyName, c.CompanyName), JobTitle: pick(p.JobTitle, c.JobTitle),
		PhoneNumber: pick(p.PhoneNumber, c.PhoneNumber), LinkedinURL: pick(p.LinkedinURL, c.LinkedinURL),
		ProfileImage: pick(p.ProfileImage, c.ProfileImage), Locale: pick(p.Locale, c.Locale), Address: c.Address, Tags: p.Tags,
	}
	// A full name that was only first + last follows them when they change.
	if p.FullName == nil && (p.FirstName != nil || p.LastName != nil) &&
		c.FullName == strings.TrimSpace(c.FirstName+" "+c.LastName) {
		in.FullName = ""
	}
	if p.Address != nil {
		in.Address = *p.Address
	}
	var problems gifting.Problems
	var e *gifting.Error
	if errors.As(in.Validate(), &e) {
		problems = e.Details
	}
	companyID, notes := strings.TrimSpace(pick(p.CompanyID, c.CompanyID)), strings.TrimSpace(pick(p.Notes, c.Notes))
	problems.AtMost("companyId", companyID, maxNameLen)
	problems.AtMost("notes", notes, maxNotesLen)
	if err := problems.Err(); err != nil {
		return err
	}
	if in.MailID != c.MailID {
		c.setPrimaryEmail(in.MailID, now)
	}
	c.FirstName, c.LastName, c.FullName = in.FirstName, in.LastName, in.FullName
	c.CompanyName, c.CompanyID, c.JobTitle, c.PhoneNumber = in.CompanyName, companyID, in.JobTitle, in.PhoneNumber
	c.LinkedinURL, c.ProfileImage, c.Notes, c.Locale = in.LinkedinURL, in.ProfileImage, notes, in.Locale
	if p.Tags != nil {
		tags := make([]Tag, 0, len(in.Tags))
		for _, name := range in.Tags {
			tags = append(tags, Tag{Name: name, Color: TagColor(name)})
		}
		c.Tags = tags
	}
	if p.Address != nil && in.Address != c.Address {
		c.setPrimaryAddress(in.Address, now)
	}
	c.UpdatedAt = now
	return nil
}

// setPrimaryEmail makes email the contact's mailId and primary email entry;
// the previous address stays as a secondary entry.
func (c *Contact) setPrimaryEmail(email string, now time.Time) {
	c.MailID = email
	c.Emails = slices.Clone(c.Emails)
	found := false
	for i := range c.Emails {
		e := &c.Emails[i]
		e.IsPrimary = e.Email == email
		found = found || e.IsPrimary
	}
	if !found {
		c.Emails = append(c.Emails, EmailEntry{Email: email, IsPrimary: true,
			Source: SourceRef{Type: SourceAPI, AddedAt: now}, AddedAt: now, UpdatedAt: now})
	}
}

// setPrimaryAddress makes a the contact's address and primary address
// entry (an empty a clears the address); other entries become secondary.
func (c *Contact) setPrimaryAddress(a Address, now time.Time) {
	c.Address = a
	c.Addresses = slices.Clone(c.Addresses)
	found := false
	for i := range c.Addresses {
		e := &c.Addresses[i]
		e.IsPrimary = !a.IsZero() && e.Address == a
		found = found || e.IsPrimary
	}
	if !found && !a.IsZero() {
		c.Addresses = append(c.Addresses, AddressEntry{Address: a, Type: AddressTypeShip, IsPrimary: true,
			Source: SourceRef{Type: SourceAPI, AddedAt: now}, AddedAt: now, UpdatedAt: now})
	}
}
