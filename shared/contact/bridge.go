package contact

import (
	"slices"

	"github.com/giftcampaign/service/shared/gifting"
)

// The contact in gifting's shape: the recipient slice, the wire and the
// storage adapter's older readers still carry it so (gifting.Contact,
// gifting.ContactInput); these convert between that shape and this slice's.

// CheckCarried checks a contact carried in gifting's shape by this slice's
// rules (Input.Validate), and leaves it normalized as they do. Errors:
// VALIDATION_FAILED.
func CheckCarried(in *gifting.ContactInput) error {
	ci := InputOfCarried(*in)
	err := ci.Validate()
	in.MailID, in.FirstName, in.LastName, in.FullName = ci.MailID, ci.FirstName, ci.LastName, ci.FullName
	in.CompanyName, in.JobTitle, in.PhoneNumber = ci.CompanyName, ci.JobTitle, ci.PhoneNumber
	in.LinkedinURL, in.ProfileImage, in.Tags, in.Address = ci.LinkedinURL, ci.ProfileImage, ci.Tags, gifting.Address(ci.Address)
	in.Locale = ci.Locale
	return err
}

// InputOfCarried is a contact input in gifting's shape as this slice's.
func InputOfCarried(in gifting.ContactInput) Input {
	ci := Input{
		MailID: in.MailID, FirstName: in.FirstName, LastName: in.LastName, FullName: in.FullName,
		CompanyName: in.CompanyName, JobTitle: in.JobTitle, PhoneNumber: in.PhoneNumber, LinkedinURL: in.LinkedinURL,
		ProfileImage: in.ProfileImage, Locale: in.Locale, Tags: slices.Clone(in.Tags), Address: Address(in.Address),
	}
	if in.Campaign != nil {
		cc := Campaign(*in.Campaign)
		ci.Campaign = &cc
	}
	return ci
}

// Carried is c in gifting's shape.
func Carried(c Contact) gifting.Contact {
	return gifting.Contact{
		ContactID: c.ContactID, OrganizationID: c.OrganizationID, MailID: c.MailID, IsDeleted: c.IsDeleted,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, ListIDs: c.ListIDs, PhoneNumber: c.PhoneNumber,
		FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName, JobTitle: c.JobTitle,
		CompanyName: c.CompanyName, CompanyID: c.CompanyID, LinkedinURL: c.LinkedinURL, ProfileImage: c.ProfileImage,
		Locale: c.Locale, Notes: c.Notes, Address: gifting.Address(c.Address), Usage: gifting.Usage(c.Usage),
		Tags:      convert(c.Tags, func(t Tag) gifting.Tag { return gifting.Tag(t) }),
		Sources:   convert(c.Sources, func(s Source) gifting.Source { return gifting.Source(s) }),
		Campaigns: convert(c.Campaigns, func(cc Campaign) gifting.ContactCampaign { return gifting.ContactCampaign(cc) }),
		Emails: convert(c.Emails, func(e EmailEntry) gifting.EmailEntry {
			return gifting.EmailEntry{Email: e.Email, IsPrimary: e.IsPrimary, IsVerified: e.IsVerified,
				Source: gifting.SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
		Addresses: convert(c.Addresses, func(e AddressEntry) gifting.AddressEntry {
			return gifting.AddressEntry{Address: gifting.Address(e.Address), Type: e.Type, IsPrimary: e.IsPrimary,
				IsVerified: e.IsVerified, Source: gifting.SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
	}
}

// FromCarried is a contact in gifting's shape as this slice's (without
// its Stored).
func FromCarried(c gifting.Contact) Contact {
	return Contact{
		ContactID: c.ContactID, OrganizationID: c.OrganizationID, MailID: c.MailID, IsDeleted: c.IsDeleted,
		CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, ListIDs: c.ListIDs, PhoneNumber: c.PhoneNumber,
		FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName, JobTitle: c.JobTitle,
		CompanyName: c.CompanyName, CompanyID: c.CompanyID, LinkedinURL: c.LinkedinURL, ProfileImage: c.ProfileImage,
		Locale: c.Locale, Notes: c.Notes, Address: Address(c.Address), Usage: Usage(c.Usage),
		Tags:      convert(c.Tags, func(t gifting.Tag) Tag { return Tag(t) }),
		Sources:   convert(c.Sources, func(s gifting.Source) Source { return Source(s) }),
		Campaigns: convert(c.Campaigns, func(cc gifting.ContactCampaign) Campaign { return Campaign(cc) }),
		Emails: convert(c.Emails, func(e gifting.EmailEntry) EmailEntry {
			return EmailEntry{Email: e.Email, IsPrimary: e.IsPrimary, IsVerified: e.IsVerified,
				Source: SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
		Addresses: convert(c.Addresses, func(e gifting.AddressEntry) AddressEntry {
			return AddressEntry{Address: Address(e.Address), Type: e.Type, IsPrimary: e.IsPrimary,
				IsVerified: e.IsVerified, Source: SourceRef(e.Source), AddedAt: e.AddedAt, UpdatedAt: e.UpdatedAt}
		}),
	}
}

// convert maps each element of in with f; nil stays nil.
func convert[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
