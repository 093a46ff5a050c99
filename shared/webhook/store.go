package webhook

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Store is what the webhooks' use cases need of storage: loads, and the
// commits of what they decided. shared/dynamo's Store implements it; it
// decides nothing, and reports what it found as the outcomes below.
type Store interface {
	// Now is the store's clock, which versions, deliveries and the feed's
	// window follow, and NewID an id from it.
	Now() time.Time
	NewID() string

	// Endpoints reads every endpoint of orgID, oldest first (at most
	// MaxEndpoints: one read).
	Endpoints(ctx context.Context, orgID string) ([]Endpoint, error)
	// Endpoint reads one endpoint, or ErrNoEndpoint.
	Endpoint(ctx context.Context, orgID, id string) (Endpoint, error)
	// CreateEndpoint writes a new endpoint.
	CreateEndpoint(ctx context.Context, e Endpoint) error
	// UpdateEndpoint writes after in place of before, conditioned on the
	// stored endpoint still being before (its version, and its clear
	// secret when it had one, which the migration seals without moving
	// the version): ErrEndpointMoved when it is not (or is gone), and
	// nothing is written.
	UpdateEndpoint(ctx context.Context, before, after Endpoint) error
	// DeleteEndpoint deletes an endpoint, or reports ErrNoEndpoint.
	DeleteEndpoint(ctx context.Context, orgID, id string) error

	// StartDelivery records delivery d, due at due (a lease from now, so
	// a process that dies before the first attempt leaves it to the
	// scheduler tick); ErrStarted when it exists already (the stream gave
	// its record twice), and nothing is written.
	StartDelivery(ctx context.Context, orgID string, d Delivery, due time.Time) error
	// Delivery reads a delivery under way, or ErrNoDelivery (it ended).
	Delivery(ctx context.Context, orgID, webhookID, msgID string) (Delivery, error)
	// RecordAttempt logs attempt a of d and, in the same transaction,
	// keeps d due at a.NextAttemptAt (a retry) or ends it.
	RecordAttempt(ctx context.Context, orgID string, d Delivery, a Attempt) error
	// Attempts reads up to limit attempts of an endpoint's log, newest
	// first, after the attempt cursor ("": from the newest), with the
	// cursor of the next page ("" after the last).
	Attempts(ctx context.Context, orgID, webhookID, cursor string, limit int) (_ []Attempt, next string, _ error)

	// ChangeRecords reads the change records of orgID in r, in id order,
	// as the sequence is consumed (strongly consistent). A message's
	// data that names a recipient is a RecipientRef.
	ChangeRecords(ctx context.Context, orgID string, r Range) iter.Seq2[Record, error]
	// Recipients reads the recipients keys name (each once), as they are
	// now; one that no longer exists is absent from the map.
	Recipients(ctx context.Context, orgID string, keys []RecipientKey) (map[RecipientKey]gifting.Recipient, error)
}

// Outcomes storage reports for the application layer to act on. None is
// shown to a user as it is.
var (
	// ErrNoEndpoint: the organization has no such endpoint.
	ErrNoEndpoint = errors.New("no such webhook endpoint")
	// ErrEndpointMoved: the endpoint changed (or went) since it was read;
	// the update decides again from a fresh read.
	ErrEndpointMoved = errors.New("the webhook endpoint changed since it was read")
	// ErrStarted: the delivery exists; whoever wrote it delivers it.
	ErrStarted = errors.New("the delivery was started already")
	// ErrNoDelivery: the delivery ended (or never was).
	ErrNoDelivery = errors.New("no such delivery under way")
)
