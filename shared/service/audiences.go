package service

import (
	"context"
	"log/slog"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
)

// Kinds of the audience jobs: building an audience's members, and filling a
// contact list from an audience.
const (
	jobAudienceBuild       = gifting.JobAudienceBuild
	jobAudienceContactList = gifting.JobAudienceContactList
)

// buildSliceContacts is how many contacts one slice of an audience build
// compares (fewer when the page reaches 1 MB): a few seconds of work.
const buildSliceContacts = 1000

// AudienceStore is the storage of audiences and of the lists made from them.
type AudienceStore interface {
	CreateAudience(ctx context.Context, orgID, userID string, a gifting.AudienceList, price gifting.AudiencePrice) (gifting.AudienceList, error)
	DeleteAudience(ctx context.Context, orgID, id string) error
	Audience(ctx context.Context, orgID, id string) (gifting.AudienceList, error)
	CreateContactList(ctx context.Context, orgID, userID, name, description string) (gifting.ContactList, error)
	StartAudienceContactList(ctx context.Context, orgID, id, listID string) error
	BuildAudience(ctx context.Context, orgID, id string, sliceContacts int) (done bool, err error)
	FillAudienceContactList(ctx context.Context, orgID, id, listID string) (done bool, err error)
	NoteBuildFailure(ctx context.Context, orgID, id string) (gaveUp bool, err error)
	NoteContactListFailure(ctx context.Context, orgID, id, listID string) (gaveUp bool, err error)
	RemoveAudience(ctx context.Context, orgID, id string) error
	PurgeAudience(ctx context.Context, orgID, id string) (done bool, err error)
	RebuildAudience(ctx context.Context, orgID, id string) (gifting.AudienceList, error)
	FailAudience(ctx context.Context, orgID, id, reason string) error
}

// CreateAudience stores a validated audience as list-building and starts
// its build job. If the job cannot be queued, the audience is taken back,
// so the failed call leaves nothing.
//
// Errors: NOT_FOUND (its persona or gift), VALIDATION_FAILED.
func (s *Service) CreateAudience(ctx context.Context, orgID, userID string, a gifting.AudienceList, price gifting.AudiencePrice) (gifting.AudienceList, error) {
	a, err := s.store.CreateAudience(ctx, orgID, userID, a, price)
	if err != nil {
		return a, err
	}
	if err := s.enqueue(ctx, jobs.Job{Kind: jobAudienceBuild, OrgID: orgID, Ref: a.AudienceID}); err != nil {
		// Without its build the audience would stay list-building for
		// ever: take it back.
		if derr := s.store.DeleteAudience(context.WithoutCancel(ctx), orgID, a.AudienceID); derr != nil {
			Logger(ctx).ErrorContext(ctx, "undo audience", slog.String("audienceId", a.AudienceID), slog.String("error", derr.Error()))
		}
		return a, err
	}
	return a, nil
}

// RemoveAudience deletes an audience list: it is NOT_FOUND at once, and a
// background job removes its members in slices. The job's record (the
// audience's tombstone, a due item) is written with the delete, so if the
// job cannot be queued now the scheduler tick starts it within a lease;
// that is logged, not returned.
//
// Errors: NOT_FOUND, CONFLICT (being built, or being copied into a contact
// list).
func (s *Service) RemoveAudience(ctx context.Context, orgID, audienceID string) error {
	if err := s.store.RemoveAudience(ctx, orgID, audienceID); err != nil {
		return err
	}
	if err := s.enqueue(ctx, jobs.Job{Kind: gifting.JobAudiencePurge, OrgID: orgID, Ref: audienceID}); err != nil {
		Logger(ctx).WarnContext(ctx, "queue audience purge; the scheduler will start it",
			slog.String("audienceId", audienceID), slog.String("error", err.Error()))
	}
	return nil
}

// RebuildAudience matches a ready or failed audience against the
// organization's contacts again, with its persona's current criteria: the
// audience becomes list-building with its totals at zero, and the build job
// first removes the previous members, then matches, so the result is exact.
// If the job cannot be queued the audience is marked failed (it can be
// rebuilt again) and the error returned.
//
// Errors: NOT_FOUND, CONFLICT (not ready or failed, being copied into a
// contact list, or its persona deleted).
func (s *Service) RebuildAudience(ctx context.Context, orgID, audienceID string) (gifting.AudienceList, error) {
	a, err := s.store.RebuildAudience(ctx, orgID, audienceID)
	if err != nil {
		return a, err
	}
	if err := s.enqueue(ctx, jobs.Job{Kind: jobAudienceBuild, OrgID: orgID, Ref: audienceID}); err != nil {
		if ferr := s.store.FailAudience(context.WithoutCancel(ctx), orgID, audienceID, "the rebuild could not be started; rebuild again"); ferr != nil {
			Logger(ctx).ErrorContext(ctx, "fail audience", slog.String("audienceId", audienceID), slog.String("error", ferr.Error()))
		}
		return a, err
	}
	return a, nil
}

// runAudiencePurge removes one slice of a deleted audience's members.
func (s *Service) runAudiencePurge(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	done, err := s.store.PurgeAudience(ctx, j.OrgID, j.Ref)
	if err != nil || done {
		return nil, err
	}
	return &j, nil
}

// AudienceToContactList creates a contact list named name (the audience's
// name when blank; the description likewise has a default) and starts the job that adds the ready audience's
// members to it.
//
// If the audience is no longer ready when the copy is recorded, the new
// list is deleted again, so a refused call leaves nothing.
//
// Errors: NOT_FOUND (audience), CONFLICT (audience not ready).
func (s *Service) AudienceToContactList(ctx context.Context, orgID, userID, audienceID, name, description string) (gifting.AudienceList, gifting.ContactList, error) {
	a, err := s.store.Audience(ctx, orgID, audienceID)
	if err != nil {
		return a, gifting.ContactList{}, err
	}
	if a.Status != gifting.AudienceReady {
		return a, gifting.ContactList{}, a.NotReady()
	}
	if strings.TrimSpace(name) == "" {
		name = a.Name
	}
	if strings.TrimSpace(description) == "" {
		description = "Contacts of audience list " + a.Name
	}
	l, err := s.store.CreateContactList(ctx, orgID, userID, name, description)
	if err != nil {
		return a, l, err
	}
	if err := s.store.StartAudienceContactList(ctx, orgID, a.AudienceID, l.ListID); err != nil {
		// The audience stopped being ready since it was read (a rebuild
		// or a delete landed): the refused call leaves no empty list.
		if derr := s.DeleteContactList(context.WithoutCancel(ctx), orgID, l.ListID); derr != nil {
			Logger(ctx).ErrorContext(ctx, "undo contact list", slog.String("listId", l.ListID), slog.String("error", derr.Error()))
		}
		return a, l, err
	}
	job := jobs.Job{Kind: jobAudienceContactList, OrgID: orgID, Ref: a.AudienceID, Cursor: l.ListID}
	if err := s.enqueue(ctx, job); err != nil {
		if _, ferr := s.store.NoteContactListFailure(context.WithoutCancel(ctx), orgID, a.AudienceID, l.ListID); ferr != nil {
			Logger(ctx).ErrorContext(ctx, "record contact list failure", slog.String("error", ferr.Error()))
		}
		return a, l, err
	}
	return a, l, nil
}

// runAudienceJob runs one slice of an audience build or of filling a
// contact list from an audience. A slice that fails is retried by the
// queue; after a few consecutive failures the audience (or the list's
// progress) is marked failed and the job stops, so nothing stays
// list-building for ever.
func (s *Service) runAudienceJob(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	var (
		done bool
		err  error
	)
	switch j.Kind {
	case jobAudienceBuild:
		done, err = s.store.BuildAudience(ctx, j.OrgID, j.Ref, buildSliceContacts)
	default:
		done, err = s.store.FillAudienceContactList(ctx, j.OrgID, j.Ref, j.Cursor)
	}
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		// The audience is gone: nothing is left to do.
		return nil, nil
	}
	if err != nil {
		var gaveUp bool
		var nerr error
		if j.Kind == jobAudienceBuild {
			gaveUp, nerr = s.store.NoteBuildFailure(ctx, j.OrgID, j.Ref)
		} else {
			gaveUp, nerr = s.store.NoteContactListFailure(ctx, j.OrgID, j.Ref, j.Cursor)
		}
		if nerr == nil && gaveUp {
			s.log.ErrorContext(ctx, "audience job failed for good", slog.String("job", j.String()), slog.String("error", err.Error()))
			return nil, nil
		}
		return nil, err
	}
	if done {
		return nil, nil
	}
	return &j, nil
}
