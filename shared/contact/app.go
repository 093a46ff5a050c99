package contact

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/retry"
)

// App is the contact slice's application layer: the use cases of the
// contacts, contact lists and enrichment API and of the job that empties a
// deleted list. Each loads what it needs through the Store, decides with
// the pure functions of this package, and hands the result to the Store to
// commit, conditioned on what it was decided from; when storage reports
// that it moved (ErrChanged), the use case reads again and decides again,
// a bounded number of times with a pause between (shared/retry). The
// lists' use cases are in app_lists.go, the bulk add's in app_bulk.go.
type App struct {
	store Store
	jobs  Jobs
}

// Jobs starts the background work the slice leaves to a job: the removal
// of a deleted list's memberships (JobListDelete). Starting is only a
// head start: the list's tombstone is due for the scheduler tick, which
// runs the job when its message is lost, so Jobs reports no error (it
// logs one).
type Jobs interface {
	StartListDelete(ctx context.Context, orgID, listID string)
}

// NewApp returns the contact use cases over store; jobs starts their
// background work (nil leaves it to the scheduler tick).
func NewApp(store Store, jobs Jobs) *App { return &App{store: store, jobs: jobs} }

// Contact returns a live contact of orgID. Errors: NOT_FOUND (another
// organization's, deleted, or none).
func (a *App) Contact(ctx context.Context, orgID, contactID string) (Contact, error) {
	c, err := a.store.Contact(ctx, orgID, contactID)
	return c, shown(err, contactID, "")
}

// Contacts returns the page of orgID's live contacts and how many there
// are: in the list index's order (see Store.ContactPage), or, with a
// search, those that have for every word of it a word starting with it
// (names, company, the email and its domain: SearchWords,
// case-insensitively) and how many do.
//
// The contacts' count trails them while an import runs, and for good when
// one died between its writes and its count; so the total is the keys'
// where they tell it (gifting.PageTotal).
func (a *App) Contacts(ctx context.Context, orgID, search string, page gifting.PageRequest) ([]Contact, int, error) {
	if q, ok := NewSearch(search, ""); ok {
		return a.store.SearchContacts(ctx, orgID, q, page)
	}
	p, err := a.store.ContactPage(ctx, orgID, page)
	if err != nil {
		return nil, 0, err
	}
	if page.Resume.Cursor() {
		// A page by cursor knows not how many came before it: the total
		// is the counter's.
		return p.Contacts, max(p.Counted, 0), nil
	}
	return p.Contacts, gifting.PageTotal(page, max(p.Counted, 0), p.Read), nil
}

// UpdateContact applies p to a live contact of orgID and returns it as
// stored. A new mailId moves the contact's email in the same commit, so an
// email is never had by two contacts, nor kept by one that no longer has
// it. Errors: NOT_FOUND, VALIDATION_FAILED (Patch.Apply), CONFLICT (the
// new mailId is another contact's).
func (a *App) UpdateContact(ctx context.Context, orgID, contactID string, p Patch) (Contact, error) {
	for attempt := 1; ; attempt++ {
		cur, err := a.store.Contact(ctx, orgID, contactID)
		if err != nil {
			return Contact{}, shown(err, contactID, "")
		}
		c := cur
		if err := p.Apply(&c, a.store.Now()); err != nil {
			return Contact{}, err
		}
		err = a.store.CommitContact(ctx, orgID, cur, c)
		if err == nil {
			return c, nil
		}
		if errors.Is(err, ErrEmailTaken) {
			return Contact{}, emailTaken()
		}
		if err := again(ctx, err, attempt); err != nil {
			return Contact{}, fmt.Errorf("update contact: %w", err)
		}
	}
}

// DeleteContact deletes a live contact of orgID: its record is kept,
// marked deleted (Deleted), its email is free to be imported again, and
// it leaves every list and the organization's count, in one commit. The
// first attempt takes every list of the contact to exist; after a failed
// one (perhaps a list deleted whose job has not dropped this membership
// yet) it asks which do. Errors: NOT_FOUND.
func (a *App) DeleteContact(ctx context.Context, orgID, contactID string) error {
	for attempt := 1; ; attempt++ {
		cur, err := a.store.Contact(ctx, orgID, contactID)
		if err != nil {
			return shown(err, contactID, "")
		}
		var live map[string]bool
		if attempt > 1 {
			lists := slices.Compact(slices.Sorted(slices.Values(cur.ListIDs)))
			if live, err = a.store.ExistingLists(ctx, orgID, lists); err != nil {
				return err
			}
		}
		err = a.store.CommitContactDelete(ctx, orgID, cur, Deleted(cur, a.store.Now()), live)
		if err == nil {
			return nil
		}
		if err := again(ctx, err, attempt); err != nil {
			return fmt.Errorf("delete contact: %w", err)
		}
	}
}

// Enrich answers q from orgID's own contacts: the newest contact with q's
// LinkedIn URL, else the newest with its first name, last name and
// company (Finder). It reads the candidates storage's index finds, a
// hundred at a time, and stops at the first that settles the answer.
// Errors: VALIDATION_FAILED (Query.Validate).
func (a *App) Enrich(ctx context.Context, orgID string, q Query) (Enrichment, error) {
	if err := q.Validate(); err != nil {
		return Enrichment{}, err
	}
	f := NewFinder(q)
	for batch, err := range a.store.Candidates(ctx, orgID, q) {
		if err != nil {
			return Enrichment{Provider: ProviderContacts}, err
		}
		f.See(batch)
		if f.Done() {
			break
		}
	}
	return f.Answer(), nil
}

// again decides whether a commit that failed with err at attempt is worth
// another: a moved contact is, after a pause, until retry.MaxAttempts; any
// other error is returned.
func again(ctx context.Context, err error, attempt int) error {
	if !errors.Is(err, ErrChanged) || attempt >= retry.MaxAttempts {
		return err
	}
	return retry.Pause(ctx, attempt)
}
