package campaign

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
)

// SendBudget bounds the time a launch slice spends sending its
// invitations: half the launch record's lease in the due index (one
// minute), which the slice's count renewed just before, so the lease still
// holds when the next slice claims its contacts (no tick takes over a
// launch whose driver is busy sending), and far inside the worker's 150 s
// timeout. The invitations it leaves keep their claims and go out by the
// tick when the claims' leases end.
const SendBudget = 30 * time.Second

// SendMargin is the time a launch slice keeps before its context's
// deadline: one send with the mailer's retries and its record.
const SendMargin = 10 * time.Second

// LaunchSlice does one slice of the launch of a preparing campaign: it
// turns up to SliceSize members of its lists (from cursor, "" at the
// start) into recipients, and returns the cursor of the next slice, or
// done when the launch is over. When every member is done it finishes the
// launch (finish). A run whose cursor the launch has already passed
// returns the launch's cursor; a campaign gone or moved on ends the job.
//
// A slice goes in steps, so that it writes each recipient once, with a
// plain put, and counts them all at once:
//
//  1. it claims its members (Store.ClaimSlice): the launch record takes
//     the member ids of the slice, so every run of it works on the same
//     ones, and its due time moves a lease ahead;
//  2. it puts their recipients, paced (Store.WriteSlice): a put that finds
//     a recipient of this slice (an earlier run that did not finish, or a
//     concurrent one) counts it as the slice's, one that finds any other
//     recipient skips the contact;
//  3. one transaction counts the slice's recipients (DecideCount,
//     Store.CommitCount), conditioned on the record still holding this
//     slice's claim: of the runs of one slice only one counts;
//  4. with an Inviter and a template whose invitation is due at once, the
//     slice's recipients were written with their invitation claimed for
//     this run, which now sends those still its own (Invitations) for at
//     most SendBudget. An invitation it does not send stays claimed until
//     its lease ends, then the tick sends it: at least once.
//
// Errors: a slice that failed; a later run (the job's retry, or the tick
// from the record's cursor) does it again.
func (a *App) LaunchSlice(ctx context.Context, orgID, campaignID, cursor string) (next string, done bool, err error) {
	c, err := a.store.LoadCampaign(ctx, orgID, campaignID)
	if errors.Is(err, ErrNotFound) {
		return "", true, a.store.LaunchDone(ctx, orgID, campaignID)
	}
	if err != nil {
		return "", false, err
	}
	if cursor == "" && c.SendsEmails() {
		// The recipients added while it was a draft had their invitations
		// put off by the scheduler (recipient.EmailHold, up to 10
		// minutes): due now, the next tick invites them, within a minute
		// of the launch as the launched contacts are.
		if err := a.store.ReleaseHeldEmails(ctx, orgID, campaignID); err != nil {
			return "", false, err
		}
	}
	rec, found, err := a.store.LaunchRecord(ctx, orgID, campaignID)
	if err != nil {
		return "", false, err
	}
	step, err := DecideSlice(c, rec, found, cursor)
	if err != nil {
		return "", false, err
	}
	switch step.Kind {
	case StepStop:
		if step.ClearDue {
			return "", true, a.store.LaunchDone(ctx, orgID, campaignID)
		}
		return "", true, nil
	case StepFinish:
		return a.finish(ctx, orgID, c, rec)
	case StepSkip:
		return step.Next, false, nil
	}
	return a.runSlice(ctx, orgID, c, rec, cursor, step)
}

// runSlice claims (unless a run before claimed it), writes, counts and
// invites the slice at cursor (step, a StepRun).
func (a *App) runSlice(ctx context.Context, orgID string, c Campaign, rec LaunchRecord, cursor string, step SliceStep) (string, bool, error) {
	// One pace for the run: its writes all go to the organization's
	// partition.
	pace := a.store.NewPace()
	listID := rec.ListIDs[step.List]
	claim := rec.ClaimAt(cursor)
	if claim == nil {
		if cursor == "" {
			// The members come from an index a moment behind the table:
			// let the writes made before the launch (an import just
			// finished) reach it first.
			if err := a.store.AwaitIndex(ctx, rec.StartedAt); err != nil {
				return "", false, err
			}
		}
		inviting := a.invite != nil && c.CampaignData.EmailTemplateID != ""
		ids, last, err := a.store.MemberPage(ctx, orgID, listID, step.After, ClaimSize(inviting, step.Room))
		if err != nil {
			return "", false, err
		}
		fresh := NewClaim(cursor, step.List, ids, last)
		claimed, err := a.store.ClaimSlice(ctx, orgID, c.CampaignID, fresh, pace)
		if err != nil || !claimed {
			// Another run claimed it or moved on: run again from the
			// record.
			return cursor, false, err
		}
		claim = &fresh
	}
	mine, err := a.store.WriteSlice(ctx, SliceWrite{
		OrgID: orgID, Campaign: c, ListID: listID, IDs: claim.IDs, SliceID: SliceID(cursor), Room: step.Room,
		Invite: a.invite != nil, AssignTo: rec.StartedBy, KeyedOnly: rec.KeyedOnly, PublicBaseURL: a.cfg.PublicBaseURL,
	}, pace)
	if err != nil {
		return "", false, err
	}
	plan, err := DecideCount(orgID, c, rec, *claim, mine, a.store.Now())
	if err != nil {
		return "", false, err
	}
	if counted, err := a.count(ctx, orgID, c.CampaignID, cursor, plan, mine, pace); err != nil || !counted {
		return cursor, false, err
	}
	a.send(ctx, orgID, Invitations(mine, a.store.Now()))
	return plan.Next, false, nil
}

// count commits the slice's count plan and reports whether this run
// counted it. A count the launch record refused is an error only while
// the record still holds the slice's claim (StillClaimed): another run
// counted it otherwise, or the launch is over. A campaign that no longer
// takes the slice's recipients (deleted, or paused since they were written
// invited) fails the slice: its recipients are deleted, so a later run
// writes them again as the campaign is then.
func (a *App) count(ctx context.Context, orgID, campaignID, cursor string, plan CountPlan, mine []SliceRecipient, pace Pace) (bool, error) {
	err := a.store.CommitCount(ctx, plan, pace)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrSliceCounted):
		rec, found, err := a.store.LaunchRecord(ctx, orgID, campaignID)
		if err != nil {
			return false, err
		}
		return false, StillClaimed(rec, found, cursor)
	case errors.Is(err, ErrCampaignStopped):
		if err := a.store.DropSlice(ctx, orgID, SliceID(cursor), mine); err != nil {
			return false, err
		}
		return false, fmt.Errorf("launch slice: campaign %s no longer takes its recipients: %w", campaignID, err)
	}
	return false, err
}

// send sends the slice's invitations invs one after another (each recorded
// send moves the campaign's counters, which concurrent ones would fight
// over) through the Inviter, stopping at SendBudget or SendMargin before
// the context's deadline.
func (a *App) send(ctx context.Context, orgID string, invs []recipient.Invitation) {
	if a.invite == nil {
		return
	}
	stop := a.store.Now().Add(SendBudget)
	for i, inv := range invs {
		deadline, ok := ctx.Deadline()
		if a.store.Now().After(stop) || (ok && time.Until(deadline) < SendMargin) {
			a.cfg.Logger(ctx).InfoContext(ctx, "launch slice out of time for sending; the rest go out after their claims' lease",
				slog.Int("left", len(invs)-i))
			return
		}
		a.invite.SendInvitation(ctx, orgID, inv)
	}
}

// finish ends the launch (FinishPlan): the campaign goes live and the
// credits of the contacts paid for but not made recipients go back to the
// wallet, deciding the refund again whenever another change moved the
// balance first (wallet.Apply). A finish that raced (the campaign already
// went live, or a duplicate slice is still counting) runs again.
func (a *App) finish(ctx context.Context, orgID string, c Campaign, rec LaunchRecord) (string, bool, error) {
	plan, err := DecideFinish(orgID, c, rec, a.store.Now())
	if err != nil {
		return "", false, err
	}
	if plan.Credit != nil {
		_, err = wallet.Apply(ctx, a.store, *plan.Credit, func(ctx context.Context, w wallet.Plan) error {
			p := plan
			p.Wallet = &w
			return a.store.CommitFinish(ctx, p)
		})
	} else {
		err = a.store.CommitFinish(ctx, plan)
	}
	switch {
	case errors.Is(err, ErrFinishRaced):
		return FinishCursor, false, nil
	case err != nil:
		return "", false, fmt.Errorf("finish launch: %w", err)
	}
	return "", true, nil
}
