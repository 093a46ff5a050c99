package event

import (
	"context"
	"errors"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// Store is what the event use cases need of storage: loads, and the
// commits of decided events. shared/dynamo's Store implements it; it
// decides nothing, and reports what it found as the outcomes below.
type Store interface {
	// Now is the store's clock and NewID an id from it.
	Now() time.Time
	NewID() string
	// Event reads event id of orgID as stored; ErrNotFound when there is
	// none (or it was deleted).
	Event(ctx context.Context, orgID, id string) (Event, error)
	// EventPage reads a page of orgID's events in creation order (order
	// says which way) and the number of events, a page's worth of reads.
	EventPage(ctx context.Context, orgID string, order gifting.SortOrder, page gifting.PageRequest) ([]Event, int, error)
	// Events reads every event of orgID.
	Events(ctx context.Context, orgID string) ([]Event, error)
	// CommitNewEvent writes e, new, and counts it in its organization's
	// events, in one transaction.
	CommitNewEvent(ctx context.Context, e Event) error
	// CommitEvent writes e over the stored event, conditioned on the
	// stored one still being at version seen: ErrVersionMoved otherwise,
	// and nothing is written.
	CommitEvent(ctx context.Context, e Event, seen int) error
	// CommitEventDelete moves e out of the list (kept as deleted, with
	// e's version) and uncounts it, in one transaction conditioned on the
	// stored event being at version seen: ErrVersionMoved otherwise.
	CommitEventDelete(ctx context.Context, e Event, seen int) error
	// Campaign reads a campaign of orgID: NOT_FOUND, naming it, when
	// orgID has no such campaign. Links name campaigns by id; the event
	// slice only asks whether they exist.
	Campaign(ctx context.Context, orgID, campaignID string) (campaign.Campaign, error)
}

// Outcomes storage reports for the application layer to act on. None is
// shown to a user as it is.
var (
	// ErrNotFound: the organization has no such event.
	ErrNotFound = errors.New("no such event")
	// ErrVersionMoved: the stored event is no longer at the version the
	// change was decided from; another change committed first.
	ErrVersionMoved = errors.New("the event's version moved")
)

// NotFound is the error a user sees for ErrNotFound.
func NotFound(id string) error { return gifting.NotFound("event", id) }
