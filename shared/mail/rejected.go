package mail

import "fmt"

// Reasons of a Rejected message: stable names to record on the
// recipient's email entry.
const (
	// ReasonMessageRejected: SES refused the message itself (e.g. it
	// holds a virus, or the sender address is not verified).
	ReasonMessageRejected = "messageRejected"
	// ReasonSenderNotVerified: the MAIL FROM domain is not verified.
	ReasonSenderNotVerified = "senderNotVerified"
	// ReasonAccountSuspended: the account may not send email.
	ReasonAccountSuspended = "accountSuspended"
	// ReasonSendingPaused: sending is paused for the account or the
	// configuration set.
	ReasonSendingPaused = "sendingPaused"
	// ReasonNotFound: the configuration set or identity does not exist.
	ReasonNotFound = "notFound"
	// ReasonBadRequest: SES found the request invalid, e.g. an address it
	// cannot parse.
	ReasonBadRequest = "badRequest"
)

// Rejected is the error of a message SES refused for good: sending it
// again would fail the same way. Reason is one of the Reason constants;
// Code is SES's error code. SES's own message is left out, as it can
// quote addresses.
type Rejected struct {
	Reason string
	Code   string
}

func (r *Rejected) Error() string {
	return fmt.Sprintf("SES rejected the message: %s (%s)", r.Reason, r.Code)
}
