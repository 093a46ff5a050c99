package recipient

import "context"

// Invitation is a recipient just written with its invitation claimed for
// the writer to send at once (ClaimInvitation): still pending, it moves to
// invite_sent once the mail provider accepted the invitation
// (MarkEmailSent). A writer that cannot send it records the failure and
// releases the claim, or leaves the claim to run out, and the scheduler's
// tick sends it (lease.go).
type Invitation struct {
	// Recipient is the recipient as written, with the invitation's subject
	// and HTML rendered.
	Recipient Recipient
	// Delays are the recipient's stored event delays, and EmailSet the
	// stored name of the text its emails are rendered from.
	Delays   map[string]int
	EmailSet string
}

// Inviter sends the invitations of recipients just written with their
// invitation claimed. A writer of many recipients (the launch job) calls
// it once per committed transaction, with the recipients that transaction
// wrote; nil means no mailer is configured, and the recipients are written
// pending with their invitation scheduled.
type Inviter func(ctx context.Context, invs []Invitation)
