// Package webhook is the webhooks slice: an organization's endpoints, the
// delivery of change messages to them, and the change feed that holds the
// same messages.
//
// It holds the slice's domain types (no JSON or attribute tags: the API's
// shapes are shared/httpapi's, the messages' shared/wire's, the stored
// items shared/dynamo's), its pure decisions (decide.go: an endpoint's
// checks and changes, who a message goes to, the retry and disable rules;
// feed.go: the feed's window and paging; message.go: filling in the
// recipients a message names), its ports (store.go: Store; ports.go:
// Sealer, Sender, Render) and its application layer (App: app.go, the
// endpoints' use cases and the feed; deliver.go, the deliveries the
// stream and the retries start; stream.go, how the worker hands a batch of
// records on). Storage implements Store and imports this package for its
// types and outcomes, never App (TestStorageDecidesNothing keeps it so).
package webhook

import "time"

// Endpoint is an organization's webhook endpoint as stored: where change
// messages go, which types it is subscribed to, its signing secrets and
// its failure record. The API shows all but the secrets and the failure
// record.
type Endpoint struct {
	ID          string
	OrgID       string
	URL         string
	Events      []string
	Description string
	Enabled     bool
	// DisabledReason says why the service disabled the endpoint ("" when
	// enabled, or disabled by its owner).
	DisabledReason string
	CreatedAt      time.Time
	// UpdatedAt is the version every update is conditioned on: each
	// update moves it forward (Versioned).
	UpdatedAt time.Time
	// SealedSecret is the signing secret, sealed (shared/sealed) for
	// SecretOwner.
	SealedSecret string
	// SealedPrevSecret keeps signing beside SealedSecret until PrevUntil,
	// so a receiver can switch after a rotation without losing a message.
	SealedPrevSecret string
	PrevUntil        *time.Time
	// ClearSecret and ClearPrevSecret are the secrets of an endpoint
	// written before secrets were sealed, in clear. They keep signing
	// until a rotation or the webhook-secrets step of `admin migrate`
	// seals them; nothing writes them any more.
	ClearSecret     string
	ClearPrevSecret string
	// FailingSince is the first failed attempt since the last success.
	FailingSince *time.Time
}

// Input creates an endpoint.
type Input struct {
	URL         string
	Events      []string
	Description string
}

// Patch changes an endpoint; nil fields stay as they are.
type Patch struct {
	URL         *string
	Events      *[]string
	Description *string
	Enabled     *bool
}

// WithSecret is an endpoint with its signing secret in clear: the answer
// to a create and to a rotation, the only times the secret is shown.
type WithSecret struct {
	Endpoint Endpoint
	Secret   string
}

// Delivery is a message on its way to an endpoint: its body as first
// rendered (a retry sends the same bytes, so the same webhook-id) and the
// attempts made so far.
type Delivery struct {
	WebhookID string
	MessageID string
	Type      string
	Body      []byte
	Attempts  int
}

// Outcome is what an attempt came to.
type Outcome string

// Attempt outcomes.
const (
	Delivered Outcome = "delivered"
	// Retrying: the attempt failed and the message is tried again at
	// NextAttemptAt.
	Retrying Outcome = "retrying"
	// Failed: the attempt failed and the message is given up.
	Failed Outcome = "failed"
)

// Attempt is one attempt to deliver a message to an endpoint, as the
// deliveries log keeps it.
type Attempt struct {
	// DeliveryID names the attempt in the log ("" for a test message,
	// which the log does not keep).
	DeliveryID string
	MessageID  string
	Type       string
	// Number counts the attempts of the message, from 1.
	Number int
	// StatusCode is the receiver's answer, 0 when there was none.
	StatusCode int
	Duration   time.Duration
	// Error is why the attempt failed, "" when it did not.
	Error   string
	Outcome Outcome
	At      time.Time
	// NextAttemptAt is when a Retrying message is tried again.
	NextAttemptAt *time.Time
}
