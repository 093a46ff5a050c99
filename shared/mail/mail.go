// Package mail sends the emails of recipients' schedules. A Mailer is
// anything that delivers a Message; the service ships an Outbox, which
// appends messages to a local JSON-lines file (the local server's "sent"
// mail), and Memory for tests. No provider for real delivery (SES) is wired
// yet: a deployed service without a Mailer sends nothing, reports
// emailSent: false, and leaves the invitation scheduled.
package mail

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Message is one email to one recipient.
type Message struct {
	// To is the recipient's address.
	To      string `json:"to"`
	Subject string `json:"subject"`
	HTML    string `json:"html"`
	// Kind is the schedule entry the email is, e.g. addressConfirmation.
	Kind string `json:"kind"`
	// OrgID, CampaignID and RecipientID say whose email it is.
	OrgID       string    `json:"organizationId"`
	CampaignID  string    `json:"campaignId"`
	RecipientID string    `json:"recipientId"`
	SentAt      time.Time `json:"sentAt"`
}

// Mailer delivers messages. Send returns only when the message has been
// handed over for delivery, or with the reason it could not be. Errors are
// logged, so they must not carry the address or the body.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

// Outbox is a Mailer that appends each message as one JSON line to a file:
// the local server's outbox. Read it with Read, or with
// `tail -f <file> | jq`.
type Outbox struct {
	mu   sync.Mutex
	path string
}

var _ Mailer = (*Outbox)(nil)

// NewOutbox returns an Outbox writing to path, creating its directory.
func NewOutbox(path string) (*Outbox, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("outbox directory: %w", err)
	}
	return &Outbox{path: path}, nil
}

// Path is the file the outbox writes.
func (o *Outbox) Path() string { return o.path }

// Send appends m to the outbox file.
func (o *Outbox) Send(_ context.Context, m Message) error {
	line, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	f, err := os.OpenFile(o.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("open outbox: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		_ = f.Close()
		return fmt.Errorf("write outbox: %w", err)
	}
	return f.Close()
}

// Read returns every message of the outbox file at path, oldest first; a
// missing file is an empty outbox.
func Read(path string) ([]Message, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open outbox: %w", err)
	}
	defer f.Close()
	var out []Message
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var m Message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("outbox line %d: %w", len(out)+1, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	return out, nil
}

// Memory is a Mailer that keeps messages in memory, for tests.
type Memory struct {
	mu   sync.Mutex
	sent []Message
	fail error
}

var _ Mailer = (*Memory)(nil)

// Send keeps msg, or fails as SetFail said.
func (m *Memory) Send(_ context.Context, msg Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.sent = append(m.sent, msg)
	return nil
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
