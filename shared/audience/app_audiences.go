package audience

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

// Create checks a and its price (CheckNew), prices it, stores it as a new audience of
// orgID created by userID, building, and queues its build. If the build
// cannot be queued the audience is taken back, so the failed call leaves
// nothing. Errors: VALIDATION_FAILED, NOT_FOUND (its persona, or the gift
// it is priced by, is not orgID's), the queue's error.
func (a *App) Create(ctx context.Context, orgID, userID string, aud Audience, price Price) (Audience, error) {
	if err := CheckNew(&aud, &price); err != nil {
		return Audience{}, err
	}
	if _, err := a.Persona(ctx, orgID, aud.ICPID); err != nil {
		return Audience{}, err
	}
	meta, err := a.price(ctx, orgID, price)
	if err != nil {
		return Audience{}, err
	}
	aud = New(aud, orgID, userID, a.store.NewID(), meta, a.store.Now())
	if err := a.store.CommitNewAudience(ctx, aud); err != nil {
		return Audience{}, err
	}
	aud.Normalize()
	if err := a.enqueue(ctx, Job{Kind: JobBuild, OrgID: orgID, Ref: aud.ID}); err != nil {
		// Without its build the audience would stay building for ever:
		// take it back.
		if uerr := a.store.UndoNewAudience(context.WithoutCancel(ctx), orgID, aud.ID); uerr != nil && !errors.Is(uerr, ErrChanged) {
			a.cfg.RequestLog(ctx).ErrorContext(ctx, "undo audience", slog.String("audienceId", aud.ID), slog.String("error", uerr.Error()))
		}
		return aud, err
	}
	return aud, nil
}

// price resolves the price an audience states: the price given, the
// price of the gift given (PricedBy), or that of the cheapest available
// gift orgID sees (PricedByCheapest).
func (a *App) price(ctx context.Context, orgID string, price Price) (Meta, error) {
	switch {
	case price.CreditsPerContact != nil:
		return PricedAt(*price.CreditsPerContact), nil
	case price.GiftID != "":
		g, err := a.store.VisibleGift(ctx, orgID, price.GiftID)
		if errors.Is(err, catalog.ErrNotFound) {
			return Meta{}, catalog.GiftNotFound(price.GiftID)
		}
		if err != nil {
			return Meta{}, err
		}
		return PricedBy(g)
	}
	gifts, err := a.store.GiftsOf(ctx, catalog.Owners(orgID, nil))
	if err != nil {
		return Meta{}, err
	}
	return PricedByCheapest(gifts)
}

// Get returns audience id of orgID. Errors: NOT_FOUND (none, or another
// organization's, or deleted).
func (a *App) Get(ctx context.Context, orgID, id string) (Audience, error) {
	st, err := a.load(ctx, orgID, id)
	return st.Audience, err
}

// load reads audience id of orgID as stored, with NOT_FOUND for none.
func (a *App) load(ctx context.Context, orgID, id string) (State, error) {
	st, err := a.store.Audience(ctx, orgID, id)
	if errors.Is(err, ErrNotFound) {
		return State{}, NotFound(id)
	}
	if err != nil {
		return State{}, err
	}
	st.Audience.Normalize()
	return st, nil
}

// List returns the page q asks for of orgID's audiences that f and q's
// search keep, and how many they keep; it reads as ListPersonas does.
func (a *App) List(ctx context.Context, orgID string, f Filter, q gifting.ListQuery) ([]Audience, int, error) {
	var (
		items []Audience
		total int
		err   error
	)
	if InCreationOrder(f, q) {
		items, total, err = a.store.AudiencePage(ctx, orgID, q.Order, q.Page)
	} else {
		var all []Audience
		all, err = a.store.Audiences(ctx, orgID)
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

// Update applies p (name, description, tags) to audience id of orgID and
// returns it as stored. The build's own writes touch other fields, so an
// edit may land at any time. Errors: NOT_FOUND, VALIDATION_FAILED.
func (a *App) Update(ctx context.Context, orgID, id string, p Patch) (Audience, error) {
	st, err := a.load(ctx, orgID, id)
	if err != nil {
		return Audience{}, err
	}
	aud := st.Audience
	if err := p.Apply(&aud); err != nil {
		return Audience{}, err
	}
	aud.UpdatedAt = a.store.Now()
	stored, err := a.store.CommitAudienceEdit(ctx, aud)
	if errors.Is(err, ErrNotFound) {
		return Audience{}, NotFound(id)
	}
	if err != nil {
		return Audience{}, fmt.Errorf("update audience %s: %w", id, err)
	}
	stored.Normalize()
	return stored, nil
}

// Delete deletes audience id of orgID: it is NOT_FOUND at once, and the
// purge job removes its members in slices. The job's record (a tombstone
// in the due index) is written with the delete, so if the job cannot be
// queued now the scheduler's tick starts it within a lease; that is
// logged, not returned. The check that no job works on the audience and
// the delete's condition come from one read: a copy starting after it
// changes the audience, and the delete decides again. Errors: NOT_FOUND,
// CONFLICT (Busy: being built, or copied into a contact list).
func (a *App) Delete(ctx context.Context, orgID, id string) error {
	for attempt := 1; ; attempt++ {
		st, err := a.load(ctx, orgID, id)
		if err != nil {
			return err
		}
		if err := Busy(st.Audience, "deleted"); err != nil {
			return err
		}
		if st.Version == "" {
			// Not an audience this service wrote: no version to
			// condition the delete on.
			return NotFound(id)
		}
		err = a.store.CommitAudienceDelete(ctx, orgID, id, st.Version)
		if err == nil {
			break
		}
		if err := again(ctx, err, attempt); err != nil {
			return fmt.Errorf("delete audience %s: %w", id, err)
		}
	}
	if err := a.enqueue(ctx, Job{Kind: JobPurge, OrgID: orgID, Ref: id}); err != nil {
		a.cfg.RequestLog(ctx).WarnContext(ctx, "queue audience purge; the scheduler will start it",
			slog.String("audienceId", id), slog.String("error", err.Error()))
	}
	return nil
}

// Rebuild matches a ready or failed audience against the organization's
// contacts again, with its persona's current criteria (Rebuilt), and
// queues its build; the check and the write's condition come from one read,
// as Delete's. If the build cannot be queued the audience is failed (it
// can be rebuilt again) and the error returned. Errors: NOT_FOUND,
// CONFLICT (Busy; PersonaDeleted), the queue's error.
func (a *App) Rebuild(ctx context.Context, orgID, id string) (Audience, error) {
	var rebuilt Audience
	for attempt := 1; ; attempt++ {
		st, err := a.load(ctx, orgID, id)
		if err != nil {
			return Audience{}, err
		}
		if err := Busy(st.Audience, "rebuilt"); err != nil {
			return st.Audience, err
		}
		if _, err := a.store.Persona(ctx, orgID, st.Audience.ICPID); errors.Is(err, ErrNotFound) {
			return st.Audience, PersonaDeleted(st.Audience)
		} else if err != nil {
			return st.Audience, err
		}
		if st.Version == "" {
			return st.Audience, NotFound(id)
		}
		rebuilt, err = a.store.CommitRebuild(ctx, Rebuilt(st.Audience, a.store.Now()), st.Version)
		if err == nil {
			break
		}
		if err := again(ctx, err, attempt); err != nil {
			return st.Audience, fmt.Errorf("rebuild audience %s: %w", id, err)
		}
	}
	rebuilt.Normalize()
	if err := a.enqueue(ctx, Job{Kind: JobBuild, OrgID: orgID, Ref: id}); err != nil {
		if ferr := a.fail(context.WithoutCancel(ctx), orgID, id, ReasonRebuildNotQueued); ferr != nil {
			a.cfg.RequestLog(ctx).ErrorContext(ctx, "fail audience", slog.String("audienceId", id), slog.String("error", ferr.Error()))
		}
		return rebuilt, err
	}
	return rebuilt, nil
}

// Members returns audience id of orgID, the page q asks for of its
// members, and how many match q: its totalMatch when there is no search,
// as the keys read one past the page tell it (gifting.PageTotal). Which
// reads serve which page is MemberQuery.ReadFor's. Errors: NOT_FOUND.
func (a *App) Members(ctx context.Context, orgID, id string, q MemberQuery) (Audience, []Member, int, error) {
	if q.Read() == ReadByCreatedAt {
		aud, members, total, legacy, err := a.membersByCreatedAt(ctx, orgID, id, q)
		if !legacy {
			return aud, members, total, err
		}
	}
	st, err := a.load(ctx, orgID, id)
	if err != nil {
		return Audience{}, nil, 0, err
	}
	var (
		ids   []string
		total int
	)
	switch read := q.ReadFor(st.Indexed); {
	case read == ReadFirstByID:
		members, err := a.store.FirstMembers(ctx, orgID, id, q.Order == gifting.Asc, q.Page.Limit+1)
		page, total := FirstMembersTotal(members, q, st.Audience.TotalMatch)
		return st.Audience, normalized(page), total, err
	case read == ReadByKeys:
		keys, err := a.store.MemberKeys(ctx, orgID, id, q.SortBy, q.Order == gifting.Asc, q.Page.End()+1)
		if err != nil {
			return st.Audience, nil, 0, fmt.Errorf("audience members: %w", err)
		}
		lo, hi := q.Page.Window(len(keys))
		ids, total = ContactIDs(keys[lo:hi]), gifting.PageTotal(q.Page, int(st.Audience.TotalMatch), len(keys))
	case read == ReadSearch:
		terms := q.Terms()
		entries, err := a.store.SearchEntries(ctx, orgID, id, LeadTerm(terms), terms)
		if err != nil {
			return st.Audience, nil, 0, fmt.Errorf("search audience members: %w", err)
		}
		ids, total = SelectMembers(Matching(entries, terms), q)
	default:
		entries, err := a.store.MemberEntries(ctx, orgID, id, q.Terms())
		if err != nil {
			return st.Audience, nil, 0, err
		}
		ids, total = SelectMembers(Matching(entries, q.Terms()), q)
	}
	members, err := a.store.Members(ctx, orgID, id, ids)
	return st.Audience, normalized(members), total, err
}

// membersByCreatedAt serves a page in the default order from the keys in
// the contacts' createdAt order up to the page's end; legacy when those
// keys show a member written before that order (SortedByCreatedAt),
// which the caller serves from every entry instead.
func (a *App) membersByCreatedAt(ctx context.Context, orgID, id string, q MemberQuery) (aud Audience, page []Member, total int, legacy bool, err error) {
	var keys []MemberKey
	if q.Page.Resume.Cursor() {
		keys, err = a.store.MemberKeysAfter(ctx, orgID, id, q.Page.Resume.After, q.Order == gifting.Asc, q.Page.Limit+1)
	} else {
		keys, err = a.store.MemberKeys(ctx, orgID, id, "createdAt", q.Order == gifting.Asc, q.Page.End()+1)
	}
	if err != nil {
		return Audience{}, nil, 0, false, fmt.Errorf("audience members: %w", err)
	}
	if !SortedByCreatedAt(keys) {
		if q.Page.Resume.Cursor() {
			return Audience{}, nil, 0, false, cursorUnkeyed()
		}
		return Audience{}, nil, 0, true, nil
	}
	lo, hi := q.Page.Window(len(keys))
	if q.Page.Resume.Cursor() {
		lo, hi = 0, min(len(keys), q.Page.Limit)
	}
	if hi > lo && len(keys) > hi {
		q.Page.Resume.SetNext(keys[hi-1].Position)
	}
	aud, members, err := a.store.AudienceWithMembers(ctx, orgID, id, ContactIDs(keys[lo:hi]))
	if errors.Is(err, ErrNotFound) {
		return Audience{}, nil, 0, false, NotFound(id)
	}
	aud.Normalize()
	total = gifting.PageTotal(q.Page, int(aud.TotalMatch), len(keys))
	if q.Page.Resume.Cursor() {
		total = int(aud.TotalMatch) // a page by cursor knows not how many came before it
	}
	return aud, normalized(members), total, false, err
}

// cursorUnkeyed is the error of a page by cursor of an audience whose
// members were written before the createdAt order's keys (built before
// it, not rebuilt since).
func cursorUnkeyed() error {
	var p gifting.Problems
	p.Add("cursor", "cannot start a page of this audience's contacts: it was built before its members were keyed; page by number")
	return p.Err()
}

// normalized is ms, each Normalized.
func normalized(ms []Member) []Member {
	for i := range ms {
		ms[i].Normalize()
	}
	return ms
}
