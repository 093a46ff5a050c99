// Package mail sends the emails of recipients' schedules. A Mailer is
// anything that delivers a Message: SES is the service's, on Amazon SES v2
// in AWS and on the SES v2 emulator locally (the same code, through an
// endpoint override); Memory keeps messages for tests. A service without a
// Mailer (no sender address configured) sends nothing, reports
// emailSent: false, and leaves the invitation scheduled.
//
// The package also reads SES's bounce and complaint notifications
// (ParseSNSEvent), which decide which addresses are suppressed.
package mail

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// Message is one email to one recipient.
type Message struct {
	// To is the recipient's address.
	To      string
	Subject string
	HTML    string
	// Text is the plain-text part; empty means derived from HTML.
	Text string
	// FromName, when set, is the display name of the From line (the
	// address is the service's verified sender); ReplyTo, when set, is
	// where the recipient's replies go: the organization's branding.
	FromName string
	ReplyTo  string
	// UnsubscribeToken, when set, names the recipient's unsubscribe link:
	// the mailer puts <base>/unsubscribe/<token> in a List-Unsubscribe
	// header and at the foot of both parts. What it resolves to is the
	// caller's.
	UnsubscribeToken string
	// UnsubscribeLabel is the words of that link in the recipient's
	// language ("Von diesen E-Mails abmelden"); "" is English.
	UnsubscribeLabel string
	// Kind is the schedule entry the email is, e.g. addressConfirmation.
	Kind string
	// OrgID, CampaignID and RecipientID say whose email it is.
	OrgID       string
	CampaignID  string
	RecipientID string
	SentAt      time.Time
}

// Sent is what the provider said about a message it accepted.
type Sent struct {
	// MessageID is the provider's id of the message; SES's bounce and
	// complaint notifications name the message by it.
	MessageID string
}

// Mailer delivers messages. SendEmail returns only when the message has
// been accepted for delivery (with the provider's id of it), or with the
// reason it could not be: *Rejected when sending it again would fail the
// same way. Errors are logged, so they must not carry the address or the
// body.
type Mailer interface {
	SendEmail(ctx context.Context, m Message) (Sent, error)
}

// Memory is a Mailer that keeps messages in memory, for tests.
type Memory struct {
	mu   sync.Mutex
	sent []Message
	fail error
}

var _ Mailer = (*Memory)(nil)

// SendEmail keeps msg, or fails as SetFail said. Message ids are
// "memory-<n>".
func (m *Memory) SendEmail(_ context.Context, msg Message) (Sent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return Sent{}, m.fail
	}
	m.sent = append(m.sent, msg)
	return Sent{MessageID: "memory-" + strconv.Itoa(len(m.sent))}, nil
}

// Sent returns the messages sent so far.
func (m *Memory) Sent() []Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Message(nil), m.sent...)
}

// SetFail makes later sends fail with err (nil: succeed again).
func (m *Memory) SetFail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fail = err
}
