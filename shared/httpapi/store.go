package httpapi

import (
	"context"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Store is what the handlers read and write directly: operations without
// rules of their own beyond the store's (reads, plain creates and edits).
// Use cases with rules (launch, campaign create and edit) go through
// shared/service instead, and those of a slice through its application
// layer (wallet, catalog, event, recipient; webhook and audience through
// the service, which wires their other ports).
// shared/dynamo's Store implements it; shared/app asserts that it does.
type Store interface {
	AuthStore
	ContactStore
	gifting.Enricher
	// The slices' ports: what their use cases need. The server builds
	// the use cases over the store (NewServer); no handler calls these
	// directly.
	wallet.Store
	catalog.Store
	event.Store
}

// AuthStore resolves callers and counts their requests.
type AuthStore interface {
	Now() time.Time
	ResolveAPIKey(ctx context.Context, secret string) (gifting.Principal, error)
	Org(ctx context.Context, orgID string) (gifting.Organization, error)
	CountRequest(ctx context.Context, orgID string, class gifting.RateClass, limit int) (gifting.RequestCount, error)
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
