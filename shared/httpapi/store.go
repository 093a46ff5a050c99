package httpapi

import (
	"context"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Store is what the handlers read and write directly: operations without
// rules of their own beyond the store's (reads, plain creates and edits).
// Use cases with rules (add-recipient, launch, campaign create and edit,
// audience builds, recipient moves) go through shared/service instead, and
// those of a slice through its application layer (the wallet's App).
// shared/dynamo's Store implements it; shared/app asserts that it does.
type Store interface {
	AuthStore
	CatalogStore
	ContactStore
	RecipientReader
	AudienceReader
	EventStore
	gifting.Enricher
	// wallet.Store is what the wallet's use cases need: the server builds
	// them over the store (NewServer); no handler calls it directly.
	wallet.Store
}

// AuthStore resolves callers and counts their requests.
type AuthStore interface {
	Now() time.Time
	ResolveAPIKey(ctx context.Context, secret string) (gifting.Principal, error)
	Org(ctx context.Context, orgID string) (gifting.Organization, error)
	CountRequest(ctx context.Context, orgID string, class gifting.RateClass, limit int) (gifting.RequestCount, error)
}

// CatalogStore is the gift and template catalog.
type CatalogStore interface {
	Gift(ctx context.Context, orgID, giftID string) (gifting.Gift, error)
	ListGifts(ctx context.Context, orgID string, f gifting.GiftFilter, page gifting.PageRequest) ([]gifting.Gift, int, error)
	CreateGift(ctx context.Context, orgID string, g gifting.Gift) (gifting.Gift, error)
	Template(ctx context.Context, orgID, templateID string) (gifting.Template, error)
	CreateTemplate(ctx context.Context, orgID string, t gifting.Template) (gifting.Template, error)
	ListTemplates(ctx context.Context, orgID string, f gifting.TemplateFilter, page gifting.PageRequest) ([]gifting.Template, int, error)
	UpdateGift(ctx context.Context, orgID, giftID string, patch gifting.GiftPatch) (gifting.Gift, error)
	UpdateTemplate(ctx context.Context, orgID, templateID string, patch gifting.TemplatePatch) (gifting.Template, error)
}

// ContactStore is contacts and contact lists.
type ContactStore interface {
	Contact(ctx context.Context, orgID, contactID string) (gifting.Contact, error)
	ListContacts(ctx context.Context, orgID, search string, page gifting.PageRequest) ([]gifting.Contact, int, error)
	UpdateContact(ctx context.Context, orgID, contactID string, patch gifting.ContactPatch) (gifting.Contact, error)
	DeleteContact(ctx context.Context, orgID, contactID string) error
	ContactList(ctx context.Context, orgID, listID string) (gifting.ContactList, error)
	ListContactLists(ctx context.Context, orgID, search, sortBy string, order gifting.SortOrder, page gifting.PageRequest) ([]gifting.ContactList, int, error)
	CreateContactList(ctx context.Context, orgID, userID, name, description string) (gifting.ContactList, error)
	AddContactsToList(ctx context.Context, orgID, listID string, inputs []gifting.ContactInput, src gifting.Source) (gifting.BulkResult, error)
	AddContactIDsToList(ctx context.Context, orgID, listID string, ids []string) (gifting.BulkResult, error)
	RemoveContactFromList(ctx context.Context, orgID, listID, contactID string) error
	UpdateContactList(ctx context.Context, orgID, listID string, patch gifting.ContactListPatch) (gifting.ContactList, error)
	ListMembers(ctx context.Context, orgID, listID, search string, page gifting.PageRequest) ([]gifting.Contact, int, error)
}

// RecipientReader reads recipients and records their feedback.
type RecipientReader interface {
	// CampaignRecipient is NOT_FOUND for a recipient of a deleted campaign.
	CampaignRecipient(ctx context.Context, orgID, campaignID, recipientID string) (gifting.Recipient, error)
	ListRecipients(ctx context.Context, orgID, campaignID string, q gifting.RecipientQuery) (campaign.RecipientListPage, error)
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

// EventStore is events and their campaign links.
type EventStore interface {
	Event(ctx context.Context, orgID, id string) (gifting.Event, error)
	CreateEvent(ctx context.Context, orgID, userID string, e gifting.Event) (gifting.Event, error)
	LinkEventCampaigns(ctx context.Context, orgID, id string, campaignIDs []string) (gifting.Event, error)
	UnlinkEventCampaign(ctx context.Context, orgID, id, campaignID string) (gifting.Event, error)
	ListEvents(ctx context.Context, orgID string, f gifting.EventFilter, q gifting.ListQuery) ([]gifting.Event, int, error)
	UpdateEvent(ctx context.Context, orgID, id string, change func(*gifting.Event) error) (gifting.Event, error)
	DeleteEvent(ctx context.Context, orgID, id string) (gifting.Event, error)
}
