package catalog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/refcheck"
)

// Store is what the catalog's use cases need of storage: loads, and the
// commits of decided gifts and templates. shared/dynamo's Store implements
// it; it decides nothing, and reports what it found as the outcomes below.
type Store interface {
	// Now is the store's clock and NewID an id from it.
	Now() time.Time
	NewID() string

	// VisibleGift reads a gift orgID sees: its own, else the service
	// catalog's, in one request; ErrNotFound when neither exists.
	VisibleGift(ctx context.Context, orgID, giftID string) (Gift, error)
	// OwnGift reads a gift of ownerID's own partition (the service
	// catalog's when ownerID is gifting.CatalogOrgID); ErrNotFound when
	// there is none.
	OwnGift(ctx context.Context, ownerID, giftID string) (Gift, error)
	// GiftsOf reads every gift of each owner, newest first, in the order
	// of owners.
	GiftsOf(ctx context.Context, owners []string) ([]Gift, error)
	// CommitNewGift writes g, new, under its owner; it never overwrites.
	CommitNewGift(ctx context.Context, g Gift) error
	// CommitGift writes g over the stored gift, conditioned on the stored
	// one still being seen (its updatedAt and inventory: a claim that took
	// a unit meanwhile is never overwritten). ErrChanged otherwise.
	CommitGift(ctx context.Context, g, seen Gift) error
	// CommitSeedGift writes the service catalog's gift g, conditioned on
	// the stored gift's inventory still being stored (on there being none
	// when stored is nil). ErrChanged otherwise.
	CommitSeedGift(ctx context.Context, g Gift, stored *Inventory) error
	// CommitGiftDelete deletes ownerID's gift, in one transaction checking
	// that each of drafts is still the draft that was read. ErrNotFound
	// when the gift is gone, a *DraftChanged when a draft changed; nothing
	// is deleted then.
	CommitGiftDelete(ctx context.Context, ownerID, giftID string, drafts []refcheck.Referrer) error

	// VisibleTemplate, OwnTemplate, TemplatesOf, CommitNewTemplate,
	// CommitTemplate and CommitTemplateDelete are the same for templates;
	// CommitTemplate is conditioned on the stored updatedAt alone.
	VisibleTemplate(ctx context.Context, orgID, templateID string) (Template, error)
	OwnTemplate(ctx context.Context, ownerID, templateID string) (Template, error)
	TemplatesOf(ctx context.Context, owners []string) ([]Template, error)
	CommitNewTemplate(ctx context.Context, t Template) error
	CommitTemplate(ctx context.Context, t Template, seen time.Time) error
	CommitTemplateDelete(ctx context.Context, ownerID, templateID string, drafts []refcheck.Referrer) error
	// CommitSeedTemplates writes the service catalog's templates,
	// replacing earlier versions.
	CommitSeedTemplates(ctx context.Context, ts []Template) error

	// CampaignsReferring reads orgID's campaigns, deleted ones too, that
	// refer to ref: a gift or template a sent campaign's recipients still
	// see cannot be deleted.
	CampaignsReferring(ctx context.Context, orgID string, ref gifting.Ref) ([]refcheck.Referrer, error)
}

// Outcomes storage reports for the application layer to act on. None is
// shown to a user as it is.
var (
	// ErrNotFound: there is no such gift or template where it was read
	// (or it went before a commit's condition was checked).
	ErrNotFound = errors.New("no such gift or template")
	// ErrChanged: the stored item is no longer what the write was decided
	// from (another write committed first), or the write met a conflict
	// or throttling; deciding again from a new read may succeed.
	ErrChanged = errors.New("the stored item changed")
	// ErrDraftChanged: a draft campaign that referred to what a delete
	// removes changed meanwhile (a launch, an edit). The error is a
	// *DraftChanged naming it.
	ErrDraftChanged = errors.New("a referring draft changed")
)

// DraftChanged is ErrDraftChanged with the draft that changed.
type DraftChanged struct{ CampaignID, Name string }

func (d *DraftChanged) Error() string {
	return fmt.Sprintf("%v: campaign %s", ErrDraftChanged, d.CampaignID)
}

func (d *DraftChanged) Is(target error) bool { return target == ErrDraftChanged }

// GiftNotFound and TemplateNotFound are the errors a user sees for
// ErrNotFound: NOT_FOUND naming what was asked for.
func GiftNotFound(id string) error     { return gifting.NotFound(gifting.RefGift, id) }
func TemplateNotFound(id string) error { return gifting.NotFound(gifting.RefTemplate, id) }

// notFound is err with ErrNotFound shown as the NOT_FOUND of kind id.
func notFound(err error, kind, id string) error {
	if errors.Is(err, ErrNotFound) {
		return gifting.NotFound(kind, id)
	}
	return err
}
