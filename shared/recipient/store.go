package recipient

import (
	"context"
	"errors"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Store is what the recipient's use cases need of storage: loads, and the
// commit of a plan in one transaction. shared/dynamo's Store implements it;
// it decides nothing, and reports a failed condition of a commit as one of
// the outcomes below.
type Store interface {
	// Balances is the wallet's (wallet.Apply): a change of the balance
	// waits for the others of this process, reads the balance when none
	// left it, and takes its clock and ids anew on every attempt.
	wallet.Balances
	AddStore
	ClaimStore
	CodeStore
	UpdateStore
	EmailStore
	ReadStore
	OrderStore
}

// ReadStore reads recipients and their pages.
type ReadStore interface {
	// LoadRecipient reads a recipient with its version, strongly
	// consistent; ErrNoRecipient when there is none.
	LoadRecipient(ctx context.Context, orgID, campaignID, recipientID string) (Stored, error)
	// CampaignRecipient reads a recipient as the API shows it, with its
	// campaign: ErrNoCampaign when the campaign is missing or deleted,
	// ErrNoRecipient when the recipient is.
	CampaignRecipient(ctx context.Context, orgID, campaignID, recipientID string) (Recipient, error)
	// RecipientCampaign reads a campaign as this slice needs it;
	// ErrNoCampaign when it is missing or deleted.
	RecipientCampaign(ctx context.Context, orgID, campaignID string) (Campaign, error)
	// RecipientPage reads the page a page id names (its kind: the
	// recipient's landing or claim page); ErrNoPage when no recipient has
	// it.
	RecipientPage(ctx context.Context, pageID string) (Page, error)
	// CollectionGifts reads the gifts of a collection visible to an
	// organization (its own and the service catalog's).
	CollectionGifts(ctx context.Context, orgID, collectionID string) ([]gifting.Gift, error)
	// MarkPage records the first time of m (PageMark) with its message,
	// in one transaction conditioned on m's field being unset:
	// ErrAlreadyMarked when it was set already.
	MarkPage(ctx context.Context, m PageMark) error
}

// Outcomes storage reports when a condition of a commit failed: nothing
// was written, and the use case reads again, decides again, or answers.
// None is shown to a user as it is.
var (
	// ErrCampaignChanged: the campaign no longer accepts the recipient as
	// read (it was paused, completed or deleted since, or its state moved).
	ErrCampaignChanged = errors.New("the campaign changed since it was read")
	// ErrContactChanged: the contact holding the email was created,
	// changed or deleted since it was read.
	ErrContactChanged = errors.New("the contact changed since it was read")
	// ErrAlreadyRecipient: the contact is a recipient of the campaign
	// already (the recipient's key, derived from both, exists).
	ErrAlreadyRecipient = errors.New("the contact is already a recipient of the campaign")
	// ErrKeyTaken: a record of the request's idempotency key exists. The
	// error is a *KeyTaken with that record.
	ErrKeyTaken = errors.New("the idempotency key was taken first")
	// ErrRecipientChanged: the recipient is no longer at the version read
	// (or a contact the write names was deleted since it was read).
	ErrRecipientChanged = errors.New("the recipient changed since it was read")
	// ErrOutOfStock: the chosen gift has no unit left to reserve.
	ErrOutOfStock = errors.New("the gift is out of stock")
	// ErrCampaignEnded: the campaign was completed or deleted since it was
	// read.
	ErrCampaignEnded = errors.New("the campaign ended")
	// ErrCodeTaken: the digital gift's code the claim chose was assigned
	// (or removed) since it was read: the claim takes the next one.
	ErrCodeTaken = errors.New("the code was taken")
	// ErrCampaignMissing: the campaign item the write counts on is gone
	// (a deleted campaign's counters live on its archived copy).
	ErrCampaignMissing = errors.New("the campaign item is missing")
	// ErrAlreadyMarked: the recipient's page mark (PageMark) was recorded
	// before.
	ErrAlreadyMarked = errors.New("the page mark was recorded before")
)

// Outcomes of the reads: what a read found none of. The use cases say
// NOT_FOUND with the id the caller gave.
var (
	// ErrNoRecipient: no such recipient (or only the marker its deleted
	// campaign left).
	ErrNoRecipient = errors.New("no such recipient")
	// ErrNoCampaign: no such campaign, or it was deleted.
	ErrNoCampaign = errors.New("no such campaign")
	// ErrNoPage: no recipient has this page id.
	ErrNoPage = errors.New("no such page")
)

// KeyTaken is ErrKeyTaken with the record found under the key, nil when it
// had expired by the time it was read back.
type KeyTaken struct{ Record *gifting.IdempotencyRecord }

func (k *KeyTaken) Error() string { return ErrKeyTaken.Error() }

func (k *KeyTaken) Is(target error) bool { return target == ErrKeyTaken }
