package httpapi

import (
	"context"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Store is what the handlers read and write directly: operations without
// rules of their own beyond the store's (reads, plain creates and edits).
// Use cases with rules (add-recipient, launch, campaign create and edit,
// recipient moves) go through shared/service instead, and those of a
// slice through its application layer (wallet, catalog, event; webhook,
// audience and contact through the service, which wires their other
// ports).
// shared/dynamo's Store implements it; shared/app asserts that it does.
type Store interface {
	AuthStore
	RecipientReader
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

// RecipientReader reads recipients and records their feedback.
type RecipientReader interface {
	// CampaignRecipient is NOT_FOUND for a recipient of a deleted campaign.
	CampaignRecipient(ctx context.Context, orgID, campaignID, recipientID string) (gifting.Recipient, error)
	ListRecipients(ctx context.Context, orgID, campaignID string, q gifting.RecipientQuery) (campaign.RecipientListPage, error)
	AddRecipientFeedback(ctx context.Context, orgID, campaignID, recipientID, rating string, msg *gifting.FeedbackMessage) (gifting.Recipient, error)
}
