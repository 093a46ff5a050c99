package catalog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/refcheck"
	"github.com/giftcampaign/service/shared/retry"
)

// App is the catalog's application layer: the use cases of the gifts and
// templates API and of seeding the service catalog. Each loads what it
// needs through the Store, decides with the pure functions of this
// package, and hands the result to the Store to commit, conditioned on
// what it was decided from. The templates' use cases are in
// app_templates.go.
type App struct {
	store Store
}

// NewApp returns the catalog's use cases over store.
func NewApp(store Store) *App { return &App{store: store} }

// Gift returns a gift orgID sees: its own or the service catalog's.
// Errors: NOT_FOUND (another organization's, or none).
func (a *App) Gift(ctx context.Context, orgID, giftID string) (Gift, error) {
	g, err := a.store.VisibleGift(ctx, orgID, giftID)
	return g, notFound(err, gifting.RefGift, giftID)
}

// ListGifts returns the page of the gifts orgID sees (its own, newest
// first, then the service catalog's) that f keeps, and how many it keeps.
func (a *App) ListGifts(ctx context.Context, orgID string, f GiftFilter, page gifting.PageRequest) ([]Gift, int, error) {
	all, err := a.store.GiftsOf(ctx, Owners(orgID, f.IsDelightloop))
	if err != nil {
		return nil, 0, err
	}
	gifts, total := SelectGifts(all, f, page)
	return gifts, total, nil
}

// CreateGift checks g and stores it as orgID's own new gift, with its id
// and times. Errors: VALIDATION_FAILED (CheckGift), PAYLOAD_TOO_LARGE (a
// record over what an item holds).
func (a *App) CreateGift(ctx context.Context, orgID string, g Gift) (Gift, error) {
	var p gifting.Problems
	checkVariantIDs(&p, Gift{}, g.Variants) // a new gift has no variant yet
	if err := p.Err(); err != nil {
		return Gift{}, err
	}
	g.Variants = slices.Clone(g.Variants)
	AssignVariantIDs(g.Variants, a.store.NewID)
	g, err := NewGift(g, orgID, a.store.NewID(), a.store.Now())
	if err != nil {
		return Gift{}, err
	}
	if err := a.store.CommitNewGift(ctx, g); err != nil {
		return Gift{}, err
	}
	return g, nil
}

// UpdateGift applies p to orgID's own gift and returns it as stored. The
// write is conditioned on the gift as read, inventory included, so a
// claim that takes a unit meanwhile is never overwritten: the patch is
// applied again to the gift as it is then. Errors: NOT_FOUND (not
// orgID's own: the service catalog's gifts included), VALIDATION_FAILED
// (GiftPatch.Apply).
func (a *App) UpdateGift(ctx context.Context, orgID, giftID string, p GiftPatch) (Gift, error) {
	for attempt := 1; ; attempt++ {
		g, err := a.store.OwnGift(ctx, orgID, giftID)
		if err != nil {
			return Gift{}, notFound(err, gifting.RefGift, giftID)
		}
		seen := g
		q, err := p.WithVariantIDs(g, a.store.NewID)
		if err != nil {
			return Gift{}, err
		}
		if err := q.Apply(&g, a.store.Now()); err != nil {
			return Gift{}, err
		}
		err = a.store.CommitGift(ctx, g, seen)
		if err == nil {
			return g, nil
		}
		if err := again(ctx, err, attempt); err != nil {
			return Gift{}, fmt.Errorf("update gift: %w", err)
		}
	}
}

// DeleteGift deletes orgID's own gift for good. Errors: CONFLICT (a
// campaign past draft refers to it, named in the message; a referring
// draft changed meanwhile; more drafts refer to it than one delete
// checks), NOT_FOUND (not orgID's own: another organization's or the
// service catalog's).
func (a *App) DeleteGift(ctx context.Context, orgID, giftID string) error {
	ref := gifting.Ref{Kind: gifting.RefGift, ID: giftID}
	drafts, err := a.unreferenced(ctx, orgID, ref)
	if err != nil {
		return err
	}
	if _, err := a.store.OwnGift(ctx, orgID, giftID); err != nil {
		return notFound(err, ref.Kind, ref.ID)
	}
	if err := refcheck.CheckDraftChecks(ref, drafts); err != nil {
		return err
	}
	return deleteOutcome(ref, a.store.CommitGiftDelete(ctx, orgID, giftID, drafts))
}

// Seed writes the service catalog's gifts and templates with the ids they
// carry, replacing earlier versions: seeding twice changes nothing, and a
// gift already stored keeps its inventory (SeedGift). Errors:
// VALIDATION_FAILED naming the gift or template at fault; the items
// before it are written.
func (a *App) Seed(ctx context.Context, gifts []Gift, templates []Template) error {
	now := a.store.Now()
	for _, g := range gifts {
		if err := a.seedGift(ctx, g, now); err != nil {
			return err
		}
	}
	ts := make([]Template, 0, len(templates))
	for _, t := range templates {
		t, err := SeedTemplate(t, now)
		if err != nil {
			return err
		}
		ts = append(ts, t)
	}
	return a.store.CommitSeedTemplates(ctx, ts)
}

// seedGift writes the service catalog's gift g, with the inventory of the
// stored gift when there is one, conditioned on that inventory as read:
// a claim committing meanwhile is read again, never overwritten.
func (a *App) seedGift(ctx context.Context, g Gift, now time.Time) error {
	if _, err := SeedGift(g, nil, now); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		var stored *Gift
		found, err := a.store.OwnGift(ctx, gifting.CatalogOrgID, g.GiftID)
		switch {
		case err == nil:
			stored = &found
		case !errors.Is(err, ErrNotFound):
			return fmt.Errorf("catalog gift %s: %w", g.GiftID, err)
		}
		seeded, err := SeedGift(g, stored, now)
		if err != nil {
			return err
		}
		var inv *Inventory
		if stored != nil {
			inv = &stored.Inventory
		}
		err = a.store.CommitSeedGift(ctx, seeded, inv)
		if err == nil {
			return nil
		}
		if err := again(ctx, err, attempt); err != nil {
			return fmt.Errorf("catalog gift %s: %w", g.GiftID, err)
		}
	}
}

// unreferenced returns the draft campaigns that refer to ref, or
// CheckUnreferenced's CONFLICT.
func (a *App) unreferenced(ctx context.Context, orgID string, ref gifting.Ref) ([]refcheck.Referrer, error) {
	refs, err := a.store.CampaignsReferring(ctx, orgID, ref)
	if err != nil {
		return nil, err
	}
	return refcheck.Unreferenced(ref, refs)
}

// deleteOutcome is the error a user sees for a delete of ref that ended
// with err: NOT_FOUND when it was gone, CONFLICT naming a draft that
// changed.
func deleteOutcome(ref gifting.Ref, err error) error {
	var changed *DraftChanged
	if errors.As(err, &changed) {
		return refcheck.DraftChangedWhileDeleting(ref, changed.CampaignID, changed.Name)
	}
	return notFound(err, ref.Kind, ref.ID)
}

// again decides whether a commit that failed with err at attempt is worth
// another: a changed item is, after a pause, until retry.MaxAttempts; any
// other error is returned.
func again(ctx context.Context, err error, attempt int) error {
	if !errors.Is(err, ErrChanged) || attempt >= retry.MaxAttempts {
		return err
	}
	return retry.Pause(ctx, attempt)
}
