package recipient

import "github.com/giftcampaign/service/shared/gifting"

// AddInput is one add-recipient request.
type AddInput struct {
	OrgID, CampaignID string
	// Contact is the recipient's contact, created or merged by email.
	Contact gifting.ContactInput
	// SourceType is one of SourceTypes.
	SourceType string
	// PublicBaseURL is the base of the recipient's page URLs.
	PublicBaseURL string
	// Invite says the caller sends the invitation right after the write
	// (a mailer is configured): when the campaign is sending and its
	// template's invitation is due at once, the recipient is written with
	// its invitation claimed (Kit.InvitesNow). See Invitation.
	Invite bool
	// Idempotency, when set, makes a retry return the first response, as
	// the caller renders it (gifting.Idempotent).
	Idempotency *gifting.Idempotent[Added]
	// AssignTo, when set, is the user the recipient is assigned to.
	AssignTo AssignedUser
	// Message and SenderName are the sender's own note to the recipient
	// and the name it is signed with ("" for the campaign's default and
	// the organization's sender name); checked by DecideAdd.
	Message, SenderName string
}

// Added is what add-recipient did, as its answer says it.
type Added struct {
	CampaignID       string
	ContactID        string
	RecipientID      string
	EmailSent        bool
	CreditsDeducted  int64
	RemainingBalance int64
	LandingPageURL   string
	ClaimPageURL     string
}

// AddResult is what add-recipient did.
type AddResult struct {
	// Response is the answer of add-recipient.
	Response Added
	// Replay, when set, is the stored response of an earlier request with
	// the same idempotency key: nothing was done this time, and Response
	// and Recipient are zero.
	Replay *gifting.StoredResponse
	// Recipient is the recipient written.
	Recipient Recipient
	// Delays are the recipient's stored event delays, and EmailSet the
	// stored name of the text its emails are rendered from.
	Delays   map[string]int
	EmailSet string
}

// Invited reports whether the recipient was written with its invitation
// claimed: the caller must now send it (Invitation).
func (r AddResult) Invited() bool {
	return r.Replay == nil && r.Recipient.Emails.AddressConfirmation.ClaimedAt != nil
}

// Invitation is the invitation to send when Invited.
func (r AddResult) Invitation() Invitation {
	return Invitation{Recipient: r.Recipient, Delays: r.Delays, EmailSet: r.EmailSet}
}

// StatusChange is the data of a recipient.status_changed message: the
// recipient as moved, and the status it left.
type StatusChange struct {
	Recipient
	PreviousStatus gifting.RecipientStatus
}
