package httpapi

import (
	"context"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Store is what the handlers read and write directly: operations without
// rules of their own beyond the store's (reads, plain creates and edits).
// Use cases with rules (launch, campaign create and edit) go through
// shared/service instead, and those of a slice through its application
// layer (wallet, catalog, event, recipient; webhook, audience and contact
// through the service, which wires their other ports).
// shared/dynamo's Store implements it; shared/app asserts that it does.
type Store interface {
	AuthStore
	// The slices' ports: what their use cases need. The server builds
	// the use cases over the store (NewServer); no handler calls these
	// directly.
	wallet.Store
	catalog.Store
	event.Store
	contact.Store
}

// AuthStore resolves callers and counts their requests.
type AuthStore interface {
	Now() time.Time
	ResolveAPIKey(ctx context.Context, secret string) (gifting.Principal, error)
	Org(ctx context.Context, orgID string) (gifting.Organization, error)
	CountRequest(ctx context.Context, orgID string, class gifting.RateClass, limit int) (gifting.RequestCount, error)
}
