package contact

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/giftcampaign/service/shared/retry"
)

// The bulk add: contacts created or merged into a list, or existing
// contacts added to one.

// chunk is how many inputs a bulk add decides, writes and counts at a
// time: the counts move once per chunk.
const chunk = 100

// writers is how many contacts of a chunk are written again at once after
// their first write failed.
const writers = 16

// AddToList creates or merges contacts (one per email) and makes them
// members of orgID's list listID. Every input is validated on its own; a
// repeated email, within the inputs or already stored, merges into the
// one contact (Upsert: empty fields filled, tags and lists united, src
// recorded). Each contact is written on its own: one whose write finds
// its contact moved (a concurrent import of the same email, a concurrent
// change) is read, decided and written again alone, so one item never
// holds the others back, and fails alone. The counts move once per chunk,
// by what its writes did; when the list was deleted meanwhile, the
// contacts that joined it leave it again and fail with NOT_FOUND. Errors:
// NOT_FOUND (the list); an item's errors are in its result.
func (a *App) AddToList(ctx context.Context, orgID, listID string, inputs []Input, src Source) (BulkResult, error) {
	imp, err := a.store.OpenImport(ctx, orgID, listID)
	if err != nil {
		return BulkResult{}, shown(err, "", listID)
	}
	var res BulkResult
	for start := 0; start < len(inputs); start += chunk {
		items, err := a.importChunk(ctx, orgID, imp, inputs[start:min(start+chunk, len(inputs))], start, src)
		if err != nil {
			return BulkResult{}, err
		}
		for _, it := range items {
			res.Add(it)
		}
	}
	return res, nil
}

// importChunk writes one chunk of AddToList, its first input at offset:
// who has each email is read at once (Holdings), then each is decided.
func (a *App) importChunk(ctx context.Context, orgID string, imp Import, inputs []Input, offset int, src Source) ([]Item, error) {
	b := NewBatch(inputs)
	emails := make([]string, len(b.Inputs))
	for k, in := range b.Inputs {
		emails[k] = in.MailID
	}
	holdings, err := a.store.Holdings(ctx, orgID, imp, emails)
	if err != nil {
		return nil, err
	}
	ws := make([]*write, len(b.Inputs))
	for k, in := range b.Inputs {
		w := &write{redo: func(ctx context.Context) (Plan, error) {
			h, err := a.store.Holding(ctx, orgID, in.MailID)
			if err != nil {
				return Plan{}, err
			}
			return Upsert(h, orgID, in, src, imp.ListID, a.store.Now())
		}}
		if holdings[k].Gone {
			w.plan, w.err = w.redo(ctx)
		} else {
			w.plan, w.err = Upsert(holdings[k], orgID, in, src, imp.ListID, a.store.Now())
		}
		ws[k] = w
	}
	if err := a.commit(ctx, orgID, ws); err != nil {
		return nil, err
	}
	plans, errs := make([]Plan, len(ws)), make([]error, len(ws))
	for k, w := range ws {
		plans[k], errs[k] = w.plan, w.err
	}
	return b.Results(offset, plans, errs), nil
}

// AddIDsToList adds existing contacts of orgID to its list listID, any
// number of them (a chunk at a time). Each contact is added or reported
// on its own (Join): unknown or deleted ids fail, members already in the
// list are unchanged, as is a repeated id. Errors: NOT_FOUND (the list);
// an item's errors are in its result.
func (a *App) AddIDsToList(ctx context.Context, orgID, listID string, ids []string) (BulkResult, error) {
	if _, err := a.store.List(ctx, orgID, listID); err != nil {
		return BulkResult{}, shown(err, "", listID)
	}
	var res BulkResult
	for start := 0; start < len(ids); start += chunk {
		items, err := a.joinChunk(ctx, orgID, listID, ids[start:min(start+chunk, len(ids))], start)
		if err != nil {
			return BulkResult{}, err
		}
		for _, it := range items {
			res.Add(it)
		}
	}
	return res, nil
}

// joinChunk writes one chunk of AddIDsToList, its first id at offset.
func (a *App) joinChunk(ctx context.Context, orgID, listID string, ids []string, offset int) ([]Item, error) {
	stored, err := a.store.Contacts(ctx, orgID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]Contact, len(stored))
	for _, c := range stored {
		byID[c.ContactID] = c
	}
	first := map[string]*write{}
	var ws []*write
	for _, id := range ids {
		if first[id] != nil {
			continue
		}
		w := &write{redo: func(ctx context.Context) (Plan, error) {
			cur, err := a.store.Contact(ctx, orgID, id)
			if err != nil {
				return Plan{}, shown(err, id, listID)
			}
			return Join(cur, listID, a.store.Now())
		}}
		if cur, ok := byID[id]; ok {
			w.plan, w.err = Join(cur, listID, a.store.Now())
		} else {
			w.err = NotFound(id)
		}
		first[id] = w
		ws = append(ws, w)
	}
	if err := a.commit(ctx, orgID, ws); err != nil {
		return nil, err
	}
	items := make([]Item, len(ids))
	for i, id := range ids {
		w := first[id]
		it := Item{Index: offset + i, ContactID: id}
		switch {
		case w.err != nil:
			it.Fail(w.err)
		case slices.Index(ids, id) < i:
			it.Status = StatusUnchanged
		default:
			it.Status, it.MailID = w.plan.Status, w.plan.Contact.MailID
		}
		items[i] = it
	}
	return items, nil
}

// write is one contact's write in a bulk add: its plan, how to read and
// decide it again after storage reported it moved, and its outcome.
type write struct {
	plan Plan
	err  error
	redo func(ctx context.Context) (Plan, error)
	// done says the plan was written.
	done bool
}

// commit writes the plans of ws that decided a write, then moves the
// counts by what was written (count). The first write of each goes
// together (Store.CommitContacts); one that finds its contact moved is
// read, decided and written again on its own, writers at a time, until it
// is written or fails for good. Per-item failures end up in write.err;
// commit itself fails only when ctx ends or the counts cannot be moved.
func (a *App) commit(ctx context.Context, orgID string, ws []*write) error {
	var todo []*write
	var plans []Plan
	for _, w := range ws {
		if w.err == nil && w.plan.Status != StatusUnchanged {
			todo, plans = append(todo, w), append(plans, w.plan)
		}
	}
	// Mark the writes begun before them, so that a page that trusts the
	// count exactly knows not to until they are counted (Store.OpenCounts).
	opened := len(plans) > 0
	if opened {
		if err := a.store.OpenCounts(ctx, orgID); err != nil {
			return err
		}
	}
	errs := a.store.CommitContacts(ctx, orgID, plans)
	if err := ctx.Err(); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(writers)
	for i, w := range todo {
		if errs[i] == nil {
			w.done = true
			continue
		}
		g.Go(func() error { return a.rewrite(gctx, orgID, w, errs[i]) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return a.count(ctx, orgID, ws, opened)
}

// rewrite writes w again after its write failed with err: when its
// contact moved (ErrChanged, after a pause; ErrSlotTaken, at once) it is
// read and decided again, until retry.MaxAttempts. It returns an error
// only when ctx ends.
func (a *App) rewrite(ctx context.Context, orgID string, w *write, err error) error {
	for attempt := 1; ; attempt++ {
		// A taken slot means the email's contact exists now: merge into
		// it at once, without a pause.
		if taken := errors.Is(err, ErrSlotTaken) && attempt < retry.MaxAttempts; !taken {
			if err := again(ctx, err, attempt); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				w.err = fmt.Errorf("write contact: %w", err)
				return nil
			}
		}
		if w.plan, w.err = w.redo(ctx); w.err != nil {
			return nil
		}
		if w.plan.Status == StatusUnchanged {
			w.done = true // nothing to write: already as decided
			return nil
		}
		if err = a.store.CommitContacts(ctx, orgID, []Plan{w.plan})[0]; err == nil {
			w.done = true
			return nil
		}
	}
}

// count adds to the organization's count the contacts the written plans
// created, and to each joined list's count its new members, once for the
// whole chunk, after its writes, so a count only ever counts what exists.
// A list deleted meanwhile takes no members: the contacts that joined it
// leave it again, and fail with NOT_FOUND.
func (a *App) count(ctx context.Context, orgID string, ws []*write, opened bool) error {
	created, joined := int64(0), map[string]int64{}
	for _, w := range ws {
		if !w.done {
			continue
		}
		if w.plan.Created() {
			created++
		}
		if w.plan.Joined != "" {
			joined[w.plan.Joined]++
		}
	}
	gone, err := a.store.CommitCounts(ctx, orgID, created, joined, opened)
	if err != nil {
		return err
	}
	for _, listID := range gone {
		for _, w := range ws {
			if !w.done || w.plan.Joined != listID {
				continue
			}
			cur, err := a.live(ctx, orgID, w.plan.Contact.ContactID)
			if err != nil {
				return err
			}
			if err := a.drop(ctx, orgID, listID, w.plan.Contact.ContactID, cur); err != nil {
				return err
			}
			w.err = ListNotFound(listID)
		}
	}
	return nil
}
