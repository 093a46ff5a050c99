package webhook

import (
	"context"
	"time"
)

// Sealer seals the secrets the slice stores and opens them again
// (shared/sealed's Box over the stack's KMS key). owner binds a sealed
// value to what it belongs to (SecretOwner): it opens only for the same
// owner.
type Sealer interface {
	Seal(ctx context.Context, plaintext []byte, owner string) (string, error)
	// Open returns the secret sealed holds; a value that can never open
	// for owner is shared/sealed's ErrUnopenable.
	Open(ctx context.Context, sealed, owner string) ([]byte, error)
}

// Sender is the deliveries' side of the network (shared/webhooks over the
// deployment's policy of targets): Standard Webhooks secrets and
// signatures, and an HTTP client that only dials safe targets.
type Sender interface {
	// NewSecret returns a new signing secret.
	NewSecret() (string, error)
	// CheckURL refuses a URL deliveries never go to where the service
	// runs; the error says why, as a phrase ("only https URLs").
	CheckURL(url string) error
	// Send POSTs body to url as message id at ts, signed with each of
	// secrets, once.
	Send(ctx context.Context, url string, secrets []string, id string, ts time.Time, body []byte) Sent
}

// Render is the JSON of a message as the feed and the webhooks send it
// (shared/wire).
type Render func(Message) ([]byte, error)
