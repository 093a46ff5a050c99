package contact

import (
	"context"
	"errors"
	"fmt"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/refcheck"
)

// The use cases of contact lists and their members.

// CreateList stores a new, empty list of orgID named name, created by
// userID. Errors: VALIDATION_FAILED (a missing or overlong name, an
// overlong description).
func (a *App) CreateList(ctx context.Context, orgID, userID, name, description string) (List, error) {
	l, err := NewList(a.store.NewID(), orgID, userID, name, description, a.store.Now())
	if err != nil {
		return List{}, err
	}
	return l, a.store.CommitNewList(ctx, l)
}

// List returns a list of orgID. Errors: NOT_FOUND.
func (a *App) List(ctx context.Context, orgID, listID string) (List, error) {
	l, err := a.store.List(ctx, orgID, listID)
	return l, shown(err, "", listID)
}

// Lists returns the page of orgID's lists q selects (SelectLists) and how
// many it keeps: every list is read (one request; an organization has
// tens to hundreds).
func (a *App) Lists(ctx context.Context, orgID string, q ListQuery) ([]List, int, error) {
	all, err := a.store.Lists(ctx, orgID)
	if err != nil {
		return nil, 0, err
	}
	lists, total := SelectLists(all, q)
	return lists, total, nil
}

// UpdateList applies p to a list of orgID and returns it as stored. Only
// the name, description and updatedAt are written, so members added
// meanwhile keep their count. Errors: NOT_FOUND, VALIDATION_FAILED.
func (a *App) UpdateList(ctx context.Context, orgID, listID string, p ListPatch) (List, error) {
	l, err := a.store.List(ctx, orgID, listID)
	if err != nil {
		return List{}, shown(err, "", listID)
	}
	if err := p.Apply(&l, a.store.Now()); err != nil {
		return List{}, err
	}
	l, err = a.store.CommitListEdit(ctx, l)
	if err != nil {
		return List{}, shown(err, "", listID)
	}
	return l, nil
}

// DeleteList deletes a list of orgID: the list is gone when it returns
// (NOT_FOUND from then on) and a job removes its memberships in slices
// (RunListDelete), each contact staying with the list taken out of its
// lists. The job's start (Jobs) only makes that begin at once: the
// tombstone written with the delete is due for the scheduler tick, which
// finishes the work when the start is lost. Errors: NOT_FOUND, CONFLICT
// (a campaign past draft refers to the list, named in the message; more
// drafts refer to it than one delete checks; a referring draft changed
// meanwhile).
func (a *App) DeleteList(ctx context.Context, orgID, listID string) error {
	ref := gifting.Ref{Kind: gifting.RefContactList, ID: listID}
	refs, err := a.store.CampaignsReferring(ctx, orgID, ref)
	if err != nil {
		return err
	}
	drafts, err := refcheck.Unreferenced(ref, refs)
	if err != nil {
		return err
	}
	l, err := a.store.List(ctx, orgID, listID)
	if err != nil {
		return shown(err, "", listID)
	}
	if err := refcheck.CheckDraftChecks(ref, drafts); err != nil {
		return err
	}
	err = a.store.CommitListDelete(ctx, l, drafts)
	var changed *DraftChanged
	switch {
	case errors.As(err, &changed):
		return refcheck.DraftChangedWhileDeleting(ref, changed.CampaignID, changed.Name)
	case err != nil:
		return shown(err, "", listID)
	}
	if a.jobs != nil {
		a.jobs.StartListDelete(ctx, orgID, listID)
	}
	return nil
}

// Members returns a page of the live members of orgID's list listID (the
// contacts whose first list it is, newest first, then the others) and how
// many there are; with a search, those found by every word of it, as
// Contacts finds them. The list's count trails its members while an
// import runs: the member keys are read one past the page, and the total
// is theirs where they tell it (gifting.PageTotal); the count never
// decides which keys are read. Errors: NOT_FOUND (the list).
func (a *App) Members(ctx context.Context, orgID, listID, search string, page gifting.PageRequest) ([]Contact, int, error) {
	l, err := a.store.List(ctx, orgID, listID)
	if err != nil {
		return nil, 0, shown(err, "", listID)
	}
	if q, ok := NewSearch(search, listID); ok {
		return a.store.SearchContacts(ctx, orgID, q, page)
	}
	if page.Resume != nil && page.Page == 1 {
		return a.memberPage(ctx, orgID, l, page)
	}
	ids, err := a.store.MemberIDs(ctx, orgID, listID, page.End()+1)
	if err != nil {
		return nil, 0, err
	}
	total := gifting.PageTotal(page, int(l.ContactCount), len(ids))
	lo, hi := page.Window(len(ids))
	contacts, err := a.store.ListedContacts(ctx, orgID, ids[lo:hi])
	if err != nil {
		return nil, 0, err
	}
	return contacts, total, nil
}

// memberPage is Members' first page, or a page by cursor: the members
// right after page.Resume's position, and the next page's position. The
// first page's total is the keys' where they tell it, as by number; a
// page by cursor knows not how many came before it, so its total is the
// list's count.
func (a *App) memberPage(ctx context.Context, orgID string, l List, page gifting.PageRequest) ([]Contact, int, error) {
	ids, next, err := a.store.ListMemberPage(ctx, orgID, l.ListID, page.Resume.After, page.Limit)
	if err != nil {
		return nil, 0, err
	}
	page.Resume.SetNext(next)
	total := int(l.ContactCount)
	if !page.Resume.Cursor() {
		read := len(ids)
		if next != "" {
			read++
		}
		total = gifting.PageTotal(page, total, read)
	}
	contacts, err := a.store.ListedContacts(ctx, orgID, ids)
	return contacts, total, err
}

// MembersPage is a page of a list's members read from a cursor: each
// contact beside the cursor that starts right after it (an export that
// ends its page early goes on from there), and the cursor of the next
// page ("" when none follows).
type MembersPage struct {
	Contacts []Contact
	Cursors  []string
	Next     string
}

// MembersAfter reads up to limit live members of orgID's list listID
// after cursor ("" from the first), in Members' order: the page's member
// keys and contacts, however deep the page. A member deleted since its
// key was written is left out. Errors: NOT_FOUND (the list),
// VALIDATION_FAILED naming cursor.
func (a *App) MembersAfter(ctx context.Context, orgID, listID, cursor string, limit int) (MembersPage, error) {
	if _, err := a.store.List(ctx, orgID, listID); err != nil {
		return MembersPage{}, shown(err, "", listID)
	}
	keys, next, err := a.store.ListMemberKeys(ctx, orgID, listID, cursor, limit)
	if errors.Is(err, ErrBadCursor) {
		var p gifting.Problems
		p.Add("cursor", "is not a cursor of this list (use the Link of the page before)")
		return MembersPage{}, p.Err()
	} else if err != nil {
		return MembersPage{}, err
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ContactID
	}
	contacts, err := a.store.ListedContacts(ctx, orgID, ids)
	if err != nil {
		return MembersPage{}, err
	}
	byID := make(map[string]Contact, len(contacts))
	for _, c := range contacts {
		byID[c.ContactID] = c
	}
	out := MembersPage{Next: next}
	for _, k := range keys {
		if c, ok := byID[k.ContactID]; ok {
			out.Contacts, out.Cursors = append(out.Contacts, c), append(out.Cursors, k.Cursor)
		}
	}
	return out, nil
}

// MemberIDs returns the ids of every member of orgID's list listID, in
// Members' order. Errors: NOT_FOUND (the list).
func (a *App) MemberIDs(ctx context.Context, orgID, listID string) ([]string, error) {
	if _, err := a.store.List(ctx, orgID, listID); err != nil {
		return nil, shown(err, "", listID)
	}
	return a.store.MemberIDs(ctx, orgID, listID, -1)
}

// RemoveFromList takes a contact out of a list of orgID: the membership,
// the contact's lists and the list's count change in one commit. Errors:
// NOT_FOUND (the list, the contact, or the contact is not in the list;
// the list deleted meanwhile).
func (a *App) RemoveFromList(ctx context.Context, orgID, listID, contactID string) error {
	if _, err := a.store.List(ctx, orgID, listID); err != nil {
		return shown(err, "", listID)
	}
	for attempt := 1; ; attempt++ {
		cur, err := a.store.Contact(ctx, orgID, contactID)
		if err != nil {
			return shown(err, contactID, listID)
		}
		c, err := Leave(cur, listID, a.store.Now())
		if err != nil {
			return err
		}
		err = a.store.CommitLeave(ctx, orgID, listID, cur, c, true)
		if err == nil {
			return nil
		}
		if errors.Is(err, ErrListNotFound) {
			return ListNotFound(listID)
		}
		if err := again(ctx, err, attempt); err != nil {
			return fmt.Errorf("remove from list: %w", err)
		}
	}
}

// listDeleteSlice is how many memberships one slice of a list's deletion
// removes: one small commit each, so a slice stays well inside a Lambda
// invocation.
const listDeleteSlice = 100

// RunListDelete removes up to listDeleteSlice memberships of orgID's
// deleted list listID (the job JobListDelete): each member leaves it, the
// contact staying. It reports done when no membership is left, after
// removing the list's tombstone; otherwise it records progress (the
// tombstone is due a lease later). Running it again after a failure is
// safe: a removed membership is not read again.
func (a *App) RunListDelete(ctx context.Context, orgID, listID string) (done bool, err error) {
	// Each membership dropped leaves the list's members, so every slice
	// reads from the start.
	ids, err := a.store.MemberIDs(ctx, orgID, listID, listDeleteSlice)
	if err != nil {
		return false, err
	}
	if len(ids) == 0 {
		return true, a.store.CommitListPurged(ctx, orgID, listID)
	}
	contacts, err := a.store.Contacts(ctx, orgID, ids)
	if err != nil {
		return false, err
	}
	byID := make(map[string]*Contact, len(contacts))
	for i := range contacts {
		byID[contacts[i].ContactID] = &contacts[i]
	}
	for _, id := range ids {
		if err := a.drop(ctx, orgID, listID, id, byID[id]); err != nil {
			return false, err
		}
	}
	return false, a.store.CommitListProgress(ctx, orgID, listID)
}

// drop takes contactID out of the deleted list listID: cur is the contact
// as read (nil when it is gone), read again after a concurrent change.
func (a *App) drop(ctx context.Context, orgID, listID, contactID string, cur *Contact) error {
	for attempt := 1; ; attempt++ {
		var err error
		if cur != nil && cur.InList(listID) {
			c, _ := Leave(*cur, listID, a.store.Now())
			err = a.store.CommitLeave(ctx, orgID, listID, *cur, c, false)
		} else {
			err = a.store.CommitMemberGone(ctx, orgID, listID, contactID)
		}
		if err == nil {
			return nil
		}
		if err := again(ctx, err, attempt); err != nil {
			return fmt.Errorf("drop list member: %w", err)
		}
		if cur, err = a.live(ctx, orgID, contactID); err != nil {
			return err
		}
	}
}

// live reads a contact, nil when it is gone.
func (a *App) live(ctx context.Context, orgID, contactID string) (*Contact, error) {
	c, err := a.store.Contact(ctx, orgID, contactID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}
