package gifting

// Invitation is a recipient just written as invited: invite_sent, its
// invitation marked sent, counted as invite_sent by the campaign in the
// same transaction. The caller that wrote it must now send the invitation,
// and undo the mark with UninviteRecipient when it cannot.
//
// Marking before sending keeps the happy path at one write, and makes the
// writer of a recipient the only one who ever sends its invitation: a
// retried add-recipient is a replay or a conflict, and a launch slice run
// twice skips the contacts that are already recipients. An invitation is
// therefore sent at most once. The price is a narrow window: a process
// that dies between the write and the send (or whose undo fails) leaves a
// recipient marked invited whose email did not go out.
type Invitation struct {
	// Recipient is the recipient as written, with the invitation's subject
	// and HTML rendered and its sentAt set.
	Recipient Recipient
	// Delays are the recipient's stored event delays, and EmailSet the
	// stored name of the text its emails are rendered from, both written
	// again by UninviteRecipient.
	Delays   map[string]int
	EmailSet string
}

// AddRecipientInput is one add-recipient request.
type AddRecipientInput struct {
	OrgID, CampaignID string
	// Contact is the recipient's contact, created or merged by email.
	Contact ContactInput
	// SourceType is one of SourceTypes.
	SourceType string
	// PublicBaseURL is the base of the recipient's page URLs.
	PublicBaseURL string
	// Invite says the caller sends the invitation right after the write
	// (a mailer is configured): when the campaign is sending and its
	// template's invitation is due at once, the recipient is written as
	// invite_sent with the invitation marked sent, so the happy path needs
	// no second write. If sending fails, the caller undoes it with
	// UninviteAddedRecipient. See Invitation.
	Invite bool
	// Idempotency, when set, makes a retry return the first response, as
	// the caller renders it (Idempotent).
	Idempotency *Idempotent[AddedRecipient]
	// AssignTo, when set, is the user the recipient is assigned to.
	AssignTo AssignedUser
}

// AddRecipientResult is what add-recipient did.
type AddRecipientResult struct {
	// Response is the body of add-recipient's response (the OpenAPI schema
	// AddedRecipient).
	Response AddedRecipient
	// Replay, when set, is the stored response of an earlier request with
	// the same idempotency key: nothing was done this time, and Response
	// and Recipient are zero.
	Replay *StoredResponse
	// Recipient is the recipient written.
	Recipient Recipient
	// Delays are the recipient's stored event delays, and EmailSet the
	// stored name of the text its emails are rendered from, for
	// UninviteRecipient.
	Delays   map[string]int
	EmailSet string
}

// Invited reports whether the recipient was written as invited: the caller
// must now send the invitation (Invitation).
func (r AddRecipientResult) Invited() bool {
	return r.Replay == nil && r.Recipient.Emails.AddressConfirmation.ClaimedAt != nil
}

// Invitation is the invitation to send when Invited.
func (r AddRecipientResult) Invitation() Invitation {
	return Invitation{Recipient: r.Recipient, Delays: r.Delays, EmailSet: r.EmailSet}
}
