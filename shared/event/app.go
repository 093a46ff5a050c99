package event

import (
	"context"
	"errors"
	"fmt"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/retry"
)

// App is the event slice's application layer: the use cases of the
// events API. Each loads what it needs through the Store, decides with the
// pure functions of this package, and hands the result to the Store to
// commit, conditioned on the version it was decided from.
type App struct {
	store Store
}

// NewApp returns the event use cases over store.
func NewApp(store Store) *App { return &App{store: store} }

// Get returns event id of orgID. Errors: NOT_FOUND (no such event, or
// another organization's, or deleted).
func (a *App) Get(ctx context.Context, orgID, id string) (Event, error) {
	e, err := a.store.Event(ctx, orgID, id)
	if errors.Is(err, ErrNotFound) {
		return Event{}, NotFound(id)
	}
	if err != nil {
		return Event{}, err
	}
	e.Normalize()
	return e, nil
}

// Create checks e (Check; its linkedCampaigns with CampaignIDs) and stores
// it as a new event of orgID created by userID, at version 1. unreadable
// are the problems found reading the request, reported with e's own.
// Errors: VALIDATION_FAILED (naming every field), NOT_FOUND (a linked
// campaign that is not orgID's, the first named).
func (a *App) Create(ctx context.Context, orgID, userID string, e Event, unreadable gifting.Problems) (Event, error) {
	links, linkErr := CampaignIDs(e.LinkedCampaigns, "linkedCampaigns", false)
	err := Check(&e)
	if err := gifting.MergeProblems(unreadable, err, linkErr); err != nil {
		return Event{}, err
	}
	e.LinkedCampaigns = links
	if err := a.checkCampaigns(ctx, orgID, links); err != nil {
		return Event{}, err
	}
	now := a.store.Now()
	e.ID, e.OrganizationID, e.CreatorUserID = a.store.NewID(), orgID, userID
	e.CreatedAt, e.UpdatedAt, e.Version = now, now, 1
	if err := a.store.CommitNewEvent(ctx, e); err != nil {
		return Event{}, err
	}
	e.Normalize()
	return e, nil
}

// List returns the page q asks for of orgID's events that f and q's search
// keep, and how many they keep. In creation order with no filter or search
// it reads just the page; otherwise every event of the organization (they
// are few: tens to hundreds a year), sorted and paged here (Select).
func (a *App) List(ctx context.Context, orgID string, f Filter, q gifting.ListQuery) ([]Event, int, error) {
	var (
		items []Event
		total int
		err   error
	)
	if InCreationOrder(f, q) {
		items, total, err = a.store.EventPage(ctx, orgID, q.Order, q.Page)
	} else {
		var all []Event
		all, err = a.store.Events(ctx, orgID)
		items, total = Select(all, f, q)
	}
	if err != nil {
		return nil, 0, err
	}
	for i := range items {
		items[i].Normalize()
	}
	return items, total, nil
}

// Update applies p to event id of orgID. A patch that changes something
// moves the version and updatedAt; one that changes nothing writes
// nothing. Errors: NOT_FOUND, VALIDATION_FAILED (the patched event's
// problems and p.Unreadable).
func (a *App) Update(ctx context.Context, orgID, id string, p Patch) (Event, error) {
	return a.change(ctx, orgID, id, p.Apply)
}

// Link links campaignIDs, campaigns of orgID, to event id (ids linked
// already are kept once); the version moves when the links change.
// Errors: VALIDATION_FAILED (no id, a blank one, more than MaxCampaigns
// sent or linked), NOT_FOUND (no such event; a campaign that is not
// orgID's, the first named), and nothing changes then.
func (a *App) Link(ctx context.Context, orgID, id string, campaignIDs []string) (Event, error) {
	ids, err := CampaignIDs(campaignIDs, "campaignIds", true)
	if err != nil {
		return Event{}, err
	}
	if _, err := a.Get(ctx, orgID, id); err != nil {
		return Event{}, err
	}
	if err := a.checkCampaigns(ctx, orgID, ids); err != nil {
		return Event{}, err
	}
	return a.change(ctx, orgID, id, func(e *Event) error { return e.Link(ids) })
}

// Unlink removes campaignID from event id's links. Errors: NOT_FOUND (no
// such event, or the campaign is not linked to it).
func (a *App) Unlink(ctx context.Context, orgID, id, campaignID string) (Event, error) {
	return a.change(ctx, orgID, id, func(e *Event) error { return e.Unlink(campaignID) })
}

// Delete deletes event id of orgID: it is kept, with the next version, out
// of the list and counts, and NOT_FOUND from then on. It returns the event
// as deleted. Errors: NOT_FOUND.
func (a *App) Delete(ctx context.Context, orgID, id string) (Event, error) {
	for attempt := 1; ; attempt++ {
		e, err := a.Get(ctx, orgID, id)
		if err != nil {
			return Event{}, err
		}
		gone := Deleted(e, a.store.Now())
		err = a.store.CommitEventDelete(ctx, gone, e.Version)
		if err == nil {
			return gone, nil
		}
		if err := a.again(ctx, "delete", id, err, attempt); err != nil {
			return Event{}, err
		}
	}
}

// change loads event id, decides with change (Change) and commits the
// result conditioned on the version read, deciding again from the event
// as it is now whenever another change committed first.
func (a *App) change(ctx context.Context, orgID, id string, change func(*Event) error) (Event, error) {
	for attempt := 1; ; attempt++ {
		e, err := a.Get(ctx, orgID, id)
		if err != nil {
			return Event{}, err
		}
		after, write, err := Change(e, change, a.store.Now())
		if err != nil {
			return Event{}, err
		}
		if !write {
			return after, nil
		}
		err = a.store.CommitEvent(ctx, after, e.Version)
		if err == nil {
			return after, nil
		}
		if err := a.again(ctx, "change", id, err, attempt); err != nil {
			return Event{}, err
		}
	}
}

// again decides whether a commit that failed with err at attempt is worth
// another: a moved version is, after a pause, until retry.MaxAttempts; any
// other error is returned.
func (a *App) again(ctx context.Context, what, id string, err error, attempt int) error {
	if !errors.Is(err, ErrVersionMoved) || attempt >= retry.MaxAttempts {
		return fmt.Errorf("%s event %s: %w", what, id, err)
	}
	return retry.Pause(ctx, attempt)
}

// checkCampaigns returns NOT_FOUND naming the first of ids that is not a
// campaign of orgID.
func (a *App) checkCampaigns(ctx context.Context, orgID string, ids []string) error {
	for _, id := range ids {
		if _, err := a.store.Campaign(ctx, orgID, id); err != nil {
			return err
		}
	}
	return nil
}
