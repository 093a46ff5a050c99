package audience

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/giftcampaign/service/shared/gifting"
)

// BuildSlice runs one slice of audience id's build: it removes a slice of
// a rebuild's previous members, or compares the next page of the
// organization's contacts (at most contacts) with the persona and commits
// the matches (Chunks, Plan). It returns done when the build needs no
// further slice: the audience is ready (or failed, or was never building),
// or another run of the same slice got there first. It is safe to run any
// number of times, at once or one after another: each commit is
// conditioned on the build's cursor. Errors: NOT_FOUND (the audience is
// gone), storage's.
func (a *App) BuildSlice(ctx context.Context, orgID, id string, contacts int) (done bool, err error) {
	st, err := a.load(ctx, orgID, id)
	if err != nil {
		return true, err
	}
	switch NextStep(st) {
	case StepEnded:
		if st.Build.Due { // a build that ended without leaving the due index
			return true, a.store.BuildEnded(ctx, orgID, id)
		}
		return true, nil
	case StepClearing:
		return false, a.clear(ctx, orgID, st, contacts)
	}
	persona, err := a.store.Persona(ctx, orgID, st.Audience.ICPID)
	if errors.Is(err, ErrNotFound) {
		return true, a.fail(ctx, orgID, id, ReasonPersonaGone)
	}
	if err != nil {
		return false, err
	}
	m := NewMatcher(persona.Criteria)
	page := ContactPage{Last: true}
	if !m.Empty() { // no contact needs reading to know it matches nothing
		if page, err = a.store.BuildContacts(ctx, orgID, st.Build.Cursor, contacts); err != nil {
			return false, fmt.Errorf("contacts for audience %s: %w", id, err)
		}
	}
	pace := a.store.BuildPace()
	for _, c := range Chunks(id, m, st.Build.Cursor, page, a.store.Now()) {
		if st, err = a.commit(ctx, st, c, pace); errors.Is(err, ErrBuildMoved) {
			return true, nil // overtaken: the other run carries on
		} else if err != nil {
			return false, err
		}
	}
	return page.Last, nil
}

// commit commits chunk c of st's build (Plan) and returns the state it
// leaves. The final commit reads the audience again first, for its
// change record to hold the audience as it stands: when the build was
// overtaken meanwhile (Overtaken) it stops with ErrBuildMoved, and when
// an edit lands between that read and the commit, it reads and decides
// again.
func (a *App) commit(ctx context.Context, st State, c Chunk, pace Pace) (State, error) {
	for attempt := 1; ; attempt++ {
		if c.Final {
			now, err := a.load(ctx, st.Audience.OrganizationID, st.Audience.ID)
			if err != nil {
				return st, err
			}
			if Overtaken(st, now) {
				return st, ErrBuildMoved
			}
			st.Audience, st.Version = now.Audience, now.Version
		}
		commit, next, err := Plan(st, c, a.store.Now())
		if err != nil {
			return st, err
		}
		err = a.store.CommitBuild(ctx, commit, pace)
		if err == nil {
			return next, nil
		}
		if !errors.Is(err, ErrBuildMoved) || !c.Final || attempt >= maxBuildAttempts {
			return st, err
		}
		// The members' write units were waited for once.
		pace = nil
	}
}

// maxBuildAttempts bounds the final commit's reads and decisions again
// when edits keep landing between them.
const maxBuildAttempts = 60

// clear removes one slice (limit) of the members of a rebuilding
// audience; once none is left it ends the clearing, conditioned on the
// build not having moved on, so the next slice starts matching.
func (a *App) clear(ctx context.Context, orgID string, st State, limit int) error {
	n, err := a.store.DeleteMembers(ctx, orgID, st.Audience.ID, limit)
	if err != nil {
		return err
	}
	if n == limit {
		if !st.Build.Due {
			return nil
		}
		// Progress: the tick leaves the build to its job a lease more.
		return a.store.BuildProgressed(ctx, orgID, st.Audience.ID)
	}
	if err := a.store.CommitCleared(ctx, orgID, st.Audience.ID); err != nil && !errors.Is(err, ErrBuildMoved) {
		return fmt.Errorf("end clearing of %s: %w", st.Audience.ID, err)
	}
	return nil
}

// fail ends audience id's build for good, failed with reason (Built),
// with its audience.failed change record. An audience that is no longer
// building (or no longer there) is left as it is; one that changed since
// read (a slice committed, an edit) is read again.
func (a *App) fail(ctx context.Context, orgID, id, reason string) error {
	for attempt := 1; ; attempt++ {
		st, err := a.store.Audience(ctx, orgID, id)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Audience.Status != Building {
			return nil
		}
		st.Audience.Normalize()
		err = a.store.CommitFailed(ctx, Built(st.Audience, a.store.Now(), reason), st.Version)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrChanged) || attempt >= maxBuildAttempts {
			return fmt.Errorf("fail audience %s: %w", id, err)
		}
	}
}

// RunBuild runs one slice of audience id's build (BuildSlice, of
// BuildSliceContacts) for the job runner and reports whether more follow.
// A slice that fails is retried by the queue; after MaxFailures in a row
// the audience is failed and the job stops, so nothing stays building for
// ever. An audience that is gone has nothing left to do.
func (a *App) RunBuild(ctx context.Context, orgID, id string) (more bool, err error) {
	done, err := a.BuildSlice(ctx, orgID, id, BuildSliceContacts)
	if err == nil || gifting.ErrorCode(err) == gifting.CodeNotFound {
		return !done && err == nil, nil
	}
	gaveUp, nerr := a.noteBuildFailure(ctx, orgID, id)
	if nerr == nil && gaveUp {
		a.gaveUp(ctx, JobBuild, orgID, id, err)
		return false, nil
	}
	return false, err
}

// noteBuildFailure counts a failed slice of audience id's build and
// reports whether the job gives up: the build ended meanwhile, or it has
// failed MaxFailures slices in a row, and then it is failed for good.
func (a *App) noteBuildFailure(ctx context.Context, orgID, id string) (gaveUp bool, err error) {
	failures, err := a.store.CommitBuildFailure(ctx, orgID, id)
	if errors.Is(err, ErrNotBuilding) {
		return true, nil
	}
	if err != nil || !GaveUp(failures) {
		return false, err
	}
	return true, a.fail(ctx, orgID, id, ReasonRepeatedFailures)
}

// gaveUp logs that the job kind on audience id (and the list, for a copy)
// stopped for good after err.
func (a *App) gaveUp(ctx context.Context, kind, orgID, id string, err error, list ...string) {
	job := kind + " org=" + orgID + " ref=" + id
	if len(list) > 0 {
		job += " cursor=" + list[0]
	}
	a.cfg.Log.ErrorContext(ctx, "audience job failed for good", slog.String("job", job), slog.String("error", err.Error()))
}

// Purge removes one slice of deleted audience id's members and reports
// whether more are left; once none is, its tombstone goes too, which
// takes it out of the due index. Safe to run any number of times.
func (a *App) Purge(ctx context.Context, orgID, id string) (more bool, err error) {
	n, err := a.store.DeleteMembers(ctx, orgID, id, PurgeSliceMembers)
	if err != nil || n == PurgeSliceMembers {
		return err == nil, err
	}
	return false, a.store.CommitPurged(ctx, orgID, id)
}
