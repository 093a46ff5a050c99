package audience

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	contacts "github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// ToContactList creates a contact list of orgID named name (ListNames:
// the audience's name when blank; the description likewise) and starts
// the job that adds the ready audience's members to it. If the audience
// is no longer ready when the copy is recorded (a rebuild or a delete
// landed since it was read), the new list is deleted again, so a refused
// call leaves nothing; if the job cannot be queued, the copy counts a
// failed slice and the error is returned (the scheduler's tick carries the
// copy on). Errors: NOT_FOUND (the audience), CONFLICT (NotReady), the
// contact list's and the queue's errors.
func (a *App) ToContactList(ctx context.Context, orgID, userID, id, name, description string) (Audience, gifting.ContactList, error) {
	st, err := a.load(ctx, orgID, id)
	if err != nil {
		return Audience{}, gifting.ContactList{}, err
	}
	aud := st.Audience
	if aud.Status != Ready {
		return aud, gifting.ContactList{}, NotReady(aud)
	}
	name, description = ListNames(aud, name, description)
	l, err := a.cfg.Lists.CreateContactList(ctx, orgID, userID, name, description)
	if err != nil {
		return aud, l, err
	}
	if err := a.startCopy(ctx, orgID, id, l.ListID); err != nil {
		// The refused call leaves no empty list.
		if derr := a.cfg.Lists.DeleteContactList(context.WithoutCancel(ctx), orgID, l.ListID); derr != nil {
			a.cfg.RequestLog(ctx).ErrorContext(ctx, "undo contact list", slog.String("listId", l.ListID), slog.String("error", derr.Error()))
		}
		return aud, l, err
	}
	if err := a.enqueue(ctx, Job{Kind: JobCopy, OrgID: orgID, Ref: id, Cursor: l.ListID}); err != nil {
		if _, ferr := a.noteCopyFailure(context.WithoutCancel(ctx), orgID, id, l.ListID); ferr != nil {
			a.cfg.RequestLog(ctx).ErrorContext(ctx, "record contact list failure", slog.String("error", ferr.Error()))
		}
		return aud, l, err
	}
	return aud, l, nil
}

// startCopy records the start of the copy of audience id into listID,
// conditioned on the audience being ready; when it is not, it reads it
// again for the error to say why (NOT_FOUND, CONFLICT).
func (a *App) startCopy(ctx context.Context, orgID, id, listID string) error {
	err := a.store.CommitCopyStart(ctx, orgID, id, listID, CopyStarted())
	if !errors.Is(err, ErrNotReady) {
		if err != nil {
			return fmt.Errorf("start contact list of audience %s: %w", id, err)
		}
		return nil
	}
	st, err := a.load(ctx, orgID, id)
	if err != nil {
		return err
	}
	return NotReady(st.Audience)
}

// CopySlice runs one slice of filling contact list listID with audience
// id's members: the next CopySliceMembers members, in contactId order,
// join the list as the contacts they are, so no contact is duplicated. It
// returns done when nothing is left to do. Like a build, each slice
// commits its progress conditioned on the cursor it started from, so a
// slice that runs twice counts once. Errors: NOT_FOUND (the audience is
// gone), the contact list's and storage's.
func (a *App) CopySlice(ctx context.Context, orgID, id, listID string) (done bool, err error) {
	st, err := a.load(ctx, orgID, id)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return true, errors.Join(err, a.store.CopyDone(ctx, orgID, id, listID))
	}
	if err != nil {
		return true, err
	}
	p, ok := Copying(st.Audience, listID)
	if !ok {
		return true, a.store.CopyDone(ctx, orgID, id, listID)
	}
	ids, more, err := a.store.MemberIDsAfter(ctx, orgID, id, p.Cursor, CopySliceMembers)
	if err != nil {
		return false, err
	}
	var added contacts.BulkResult
	if len(ids) > 0 {
		added, err = a.cfg.Lists.AddContactIDsToList(ctx, orgID, listID, ids)
		if gifting.ErrorCode(err) == gifting.CodeNotFound {
			// The list is gone: the copy has nowhere to go.
			return true, a.endCopy(ctx, orgID, id, listID, ListFailed)
		}
		if err != nil {
			return false, err
		}
	}
	step := NextCopy(listID, p, ids, added, !more)
	if err := a.store.CommitCopyStep(ctx, orgID, id, step); errors.Is(err, ErrCopyMoved) {
		return true, nil // another run of this slice recorded it first
	} else if err != nil {
		return false, fmt.Errorf("record contact list progress: %w", err)
	}
	if step.Last {
		return true, a.store.CopyDone(ctx, orgID, id, listID)
	}
	// Progress: the tick leaves the copy to its job a lease more.
	return false, a.store.CopyProgressed(ctx, orgID, id, listID)
}

// endCopy sets the final status of the copy into listID, if it is still
// adding, and takes the copy out of the due index.
func (a *App) endCopy(ctx context.Context, orgID, id, listID, status string) error {
	if err := a.store.CommitCopyEnd(ctx, orgID, id, listID, status); err != nil && !errors.Is(err, ErrNotCopying) {
		return fmt.Errorf("end contact list progress: %w", err)
	}
	return a.store.CopyDone(ctx, orgID, id, listID)
}

// noteCopyFailure counts a failed slice of the copy into listID and
// reports whether the job gives up: the copy is no longer adding, or it
// has failed MaxFailures slices in a row, and then it ends failed.
func (a *App) noteCopyFailure(ctx context.Context, orgID, id, listID string) (gaveUp bool, err error) {
	failures, err := a.store.CommitCopyFailure(ctx, orgID, id, listID)
	if errors.Is(err, ErrNotCopying) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("note contact list failure: %w", err)
	}
	if !GaveUp(failures) {
		return false, nil
	}
	return true, a.endCopy(ctx, orgID, id, listID, ListFailed)
}

// RunCopy runs one slice of the copy of audience id into listID
// (CopySlice) for the job runner and reports whether more follow; its
// failures count as RunBuild's.
func (a *App) RunCopy(ctx context.Context, orgID, id, listID string) (more bool, err error) {
	done, err := a.CopySlice(ctx, orgID, id, listID)
	if err == nil || gifting.ErrorCode(err) == gifting.CodeNotFound {
		return !done && err == nil, nil
	}
	gaveUp, nerr := a.noteCopyFailure(ctx, orgID, id, listID)
	if nerr == nil && gaveUp {
		a.gaveUp(ctx, JobCopy, orgID, id, err, listID)
		return false, nil
	}
	return false, err
}
