package webhooks

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/webhook"
)

// Sender is the webhook slice's Sender over a policy: its secrets, its
// checks of targets, and its client.
type Sender struct {
	policy Policy
	client *http.Client
}

// The sender implements the slice's port.
var _ webhook.Sender = (*Sender)(nil)

// NewSender returns the sender of deliveries under p (p.Client).
func NewSender(p Policy) *Sender { return &Sender{policy: p, client: p.Client()} }

// NewSecret returns a new signing secret (NewSecret).
func (s *Sender) NewSecret() (string, error) { return NewSecret() }

// CheckURL refuses what the policy refuses before dialing (Policy.CheckURL),
// saying why without naming ErrUnsafeTarget.
func (s *Sender) CheckURL(raw string) error {
	if err := s.policy.CheckURL(raw); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), ErrUnsafeTarget.Error()+": "))
	}
	return nil
}

// Send POSTs body to rawURL as message id, signed with secrets at ts
// (Send).
func (s *Sender) Send(ctx context.Context, rawURL string, secrets []string, id string, ts time.Time, body []byte) webhook.Sent {
	r := Send(ctx, s.client, rawURL, secrets, id, ts, body)
	return webhook.Sent{StatusCode: r.StatusCode, Duration: r.Duration, Err: r.Err}
}
