package audience

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// The rules of the audience's state: which use case may act on an audience
// in which state, and the errors a user reads when it may not.

// NotFound is the error a user sees for an audience that is not there
// (ErrNotFound): NOT_FOUND naming it.
func NotFound(id string) error { return gifting.NotFound("audience list", id) }

// PersonaNotFound is NotFound for an ICP persona.
func PersonaNotFound(id string) error { return gifting.NotFound("ICP persona", id) }

// Busy is the CONFLICT of deleting or rebuilding (what: "deleted",
// "rebuilt") an audience a job is working on: its build, or filling a
// contact list from it. nil when no job is.
func Busy(a Audience, what string) error {
	if a.Status == Building {
		return gifting.Errorf(gifting.CodeConflict, "audience list %q is being built; it can be %s once its status is ready or failed", a.ID, what)
	}
	for listID, p := range a.Meta.ContactLists {
		if p.Status == ListAdding {
			return gifting.Errorf(gifting.CodeConflict, "audience list %q is being copied into contact list %q; it can be %s once that is done", a.ID, listID, what)
		}
	}
	return nil
}

// NotReady is the CONFLICT of using an audience that is not ready (turning
// it into a contact list).
func NotReady(a Audience) error {
	if a.Status == Building {
		return gifting.Errorf(gifting.CodeConflict, "audience list %q is still being built; try again when its status is ready", a.ID)
	}
	return gifting.Errorf(gifting.CodeConflict, "audience list %q is %s; only a ready audience can become a contact list", a.ID, a.Status)
}

// PersonaDeleted is the CONFLICT of rebuilding an audience whose persona
// was deleted: its members are a snapshot of a match no longer possible.
func PersonaDeleted(a Audience) error {
	return gifting.Errorf(gifting.CodeConflict, "audience list %q cannot be rebuilt: its ICP persona %q was deleted", a.ID, a.ICPID)
}

// New is a, checked (CheckNew), as created at now by userID for orgID with
// id, priced by meta: building, with no match yet.
func New(a Audience, orgID, userID, id string, meta Meta, now time.Time) Audience {
	meta.BuildStartedAt, meta.ContactLists = now, map[string]ListProgress{}
	a.ID, a.OrganizationID, a.CreatedBy, a.CreatedAt, a.UpdatedAt = id, orgID, userID, now, now
	a.TotalMatch, a.CreditRequired, a.Status, a.Meta = 0, 0, Building, meta
	return a
}

// Rebuilt is a as a rebuild starts it at now: building again from its
// persona's current criteria, with its totals and progress at zero; the
// build first removes the previous members (Build.Clearing), then
// matches every contact, so the result is exact.
func Rebuilt(a Audience, now time.Time) Audience {
	a.Status, a.TotalMatch, a.CreditRequired, a.UpdatedAt = Building, 0, 0, now
	a.Meta.ContactsScanned, a.Meta.BuildStartedAt, a.Meta.BuildFinishedAt, a.Meta.Error = 0, now, nil, ""
	return a
}

// Built is a as its build leaves it at now: ready, or failed with reason
// when reason is not empty.
func Built(a Audience, now time.Time, reason string) Audience {
	a.Status, a.UpdatedAt, a.Meta.BuildFinishedAt = Ready, now, &now
	if reason != "" {
		a.Status, a.Meta.Error = Failed, reason
	}
	return a
}

// Why a build fails, as metadata.error shows it.
const (
	ReasonPersonaGone      = "the audience's ICP persona no longer exists"
	ReasonRepeatedFailures = "the build failed repeatedly; create the audience list again"
	ReasonRebuildNotQueued = "the rebuild could not be started; rebuild again"
)

// MaxFailures is how many consecutive failed slices make a build (or a
// copy into a contact list) fail for good: below the job queue's own
// redelivery limit, so the audience reaches failed before the job is
// dropped.
const MaxFailures = 3

// GaveUp reports whether a job that has failed failures slices in a row
// stops for good.
func GaveUp(failures int) bool { return failures >= MaxFailures }
