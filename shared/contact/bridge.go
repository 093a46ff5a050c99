package contact

import "github.com/giftcampaign/service/shared/gifting"

// CheckCarried checks the contact add-recipient names, carried in
// gifting's shape until the recipient slice takes it
// (gifting.AddRecipientInput.Contact), by this slice's rules
// (Input.Validate), and leaves it normalized as they do. Errors:
// VALIDATION_FAILED.
func CheckCarried(in *gifting.ContactInput) error {
	ci := Input{
		MailID: in.MailID, FirstName: in.FirstName, LastName: in.LastName, FullName: in.FullName,
		CompanyName: in.CompanyName, JobTitle: in.JobTitle, PhoneNumber: in.PhoneNumber, LinkedinURL: in.LinkedinURL,
		ProfileImage: in.ProfileImage, Tags: in.Tags, Address: Address(in.Address),
	}
	err := ci.Validate()
	in.MailID, in.FirstName, in.LastName, in.FullName = ci.MailID, ci.FirstName, ci.LastName, ci.FullName
	in.CompanyName, in.JobTitle, in.PhoneNumber = ci.CompanyName, ci.JobTitle, ci.PhoneNumber
	in.LinkedinURL, in.ProfileImage, in.Tags, in.Address = ci.LinkedinURL, ci.ProfileImage, ci.Tags, gifting.Address(ci.Address)
	return err
}
