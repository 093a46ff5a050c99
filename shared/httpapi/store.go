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
// Use cases with rules (add-recipient, launch, campaign create and edit,
// audience builds, recipient moves) go through shared/service instead, and
// those of a slice through its application layer (wallet, catalog, event,
// contact).
// shared/dynamo's Store implements it; shared/app asserts that it does.
type Store interface {
	AuthStore
	CampaignReader
	RecipientReader
	AudienceReader
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

// CampaignReader reads campaigns and makes the moves without rules beyond
// the state machine's.
type CampaignReader interface {
	Campaign(ctx context.Context, orgID, campaignID string) (gifting.Campaign, error)
	ListCampaigns(ctx context.Context, orgID string, f gifting.CampaignFilter, sortBy string, order gifting.SortOrder, page gifting.PageRequest) ([]gifting.Campaign, int, error)
	MoveCampaign(ctx context.Context, orgID, campaignID string, act gifting.CampaignAction, userID, reason string) (gifting.Campaign, error)
}

// RecipientReader reads recipients and records their feedback.
type RecipientReader interface {
	// CampaignRecipient is NOT_FOUND for a recipient of a deleted campaign.
	CampaignRecipient(ctx context.Context, orgID, campaignID, recipientID string) (gifting.Recipient, error)
	ListRecipients(ctx context.Context, orgID, campaignID string, q gifting.RecipientQuery) (gifting.RecipientListPage, error)
	AddRecipientFeedback(ctx context.Context, orgID, campaignID, recipientID, rating string, msg *gifting.FeedbackMessage) (gifting.Recipient, error)
}

// AudienceReader reads audiences and stores personas and plain audience
// edits (the rest goes through the service).
type AudienceReader interface {
	Persona(ctx context.Context, orgID, id string) (gifting.ICPPersona, error)
	CreatePersona(ctx context.Context, orgID, userID string, p gifting.ICPPersona) (gifting.ICPPersona, error)
	Audience(ctx context.Context, orgID, id string) (gifting.AudienceList, error)
	AudienceMembers(ctx context.Context, orgID, audienceID string, q gifting.MemberQuery) (gifting.AudienceList, []gifting.AudienceMember, int, error)
	ListPersonas(ctx context.Context, orgID string, f gifting.PersonaFilter, q gifting.ListQuery) ([]gifting.ICPPersona, int, error)
	UpdatePersona(ctx context.Context, orgID, id string, change func(*gifting.ICPPersona) error) (gifting.ICPPersona, error)
	DeletePersona(ctx context.Context, orgID, id string) error
	ListAudiences(ctx context.Context, orgID string, f gifting.AudienceFilter, q gifting.ListQuery) ([]gifting.AudienceList, int, error)
	UpdateAudience(ctx context.Context, orgID, id string, change func(*gifting.AudienceList) error) (gifting.AudienceList, error)
}
