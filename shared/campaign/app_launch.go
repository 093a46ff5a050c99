package campaign

import (
	"context"
	"errors"
	"log/slog"
	"slices"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/metrics"
	"github.com/giftcampaign/service/shared/wallet"
)

// Launch accepts the launch of a draft: the credits of every contact of
// its lists are taken, the campaign is preparing and its launch record is
// due for the scheduler when it returns (LaunchPlan, one transaction); the
// launch job writes the recipients slice by slice (LaunchSlice) and its
// finish gives back the credits of the contacts that did not become
// recipients. The job's message only makes the launch start at once:
// whether it is ever sent or not, the scheduler's tick finds the record
// due and drives the launch to its end, so a failed enqueue is logged, not
// returned. A non-nil stored response is the first response to idem's key
// (nil: none): nothing was done.
//
// Errors: NOT_FOUND (campaign), CONFLICT (not a draft; no contact list, no
// gifts and no price, no contacts; a list, template or gift deleted; a
// price out of bounds or below the catalog's; edited or launched
// meanwhile), INSUFFICIENT_CREDITS (nothing written),
// IDEMPOTENCY_KEY_REUSED.
func (a *App) Launch(ctx context.Context, orgID, campaignID, userID string, idem *gifting.Idempotent[Launch]) (Launch, *gifting.StoredResponse, error) {
	if stored, err := a.store.IdempotentReplay(ctx, orgID, idem.KeyOf()); stored != nil || err != nil {
		return Launch{}, stored, err
	}
	l, err := a.launch(ctx, orgID, campaignID, userID, idem)
	if answered, ok := errors.AsType[*Answered](err); ok {
		return Launch{}, &answered.Stored, nil
	}
	if err != nil && idem != nil && gifting.ErrorCode(err) == gifting.CodeConflict {
		// A concurrent request with the same key may have committed after
		// the replay check above: the campaign then is no longer a draft,
		// and this one failed on it. Every retry gets the first response.
		if stored, rerr := a.store.IdempotentReplay(ctx, orgID, idem.KeyOf()); stored != nil || rerr != nil {
			return Launch{}, stored, rerr
		}
	}
	if err != nil {
		return Launch{}, nil, err
	}
	if err := a.enqueue(ctx, gifting.JobLaunch, orgID, campaignID); err != nil {
		a.cfg.Logger(ctx).WarnContext(ctx, "launch job not enqueued; the scheduler will run the launch",
			slog.String("organizationId", orgID), slog.String("campaignId", campaignID), slog.String("error", err.Error()))
	}
	metrics.Count(orgID, map[string]int64{metrics.LaunchesAccepted: 1, metrics.CreditsSpent: l.CreditsDeducted})
	return l, nil, nil
}

// enqueue hands a job to the queue.
func (a *App) enqueue(ctx context.Context, kind, orgID, ref string) error {
	if a.queue == nil {
		return errors.New("no job queue configured for " + kind)
	}
	return a.queue.Enqueue(ctx, kind, orgID, ref)
}

// launch loads what the launch of campaignID needs, decides it and
// commits it, deciding the debit again whenever another change moved the
// balance first (wallet.Apply). Errors as Launch, and *Answered.
func (a *App) launch(ctx context.Context, orgID, campaignID, userID string, idem *gifting.Idempotent[Launch]) (Launch, error) {
	st, err := a.launchState(ctx, orgID, campaignID, userID)
	if err != nil {
		return Launch{}, err
	}
	plan, err := DecideLaunch(st)
	if err != nil {
		return Launch{}, err
	}
	var committed LaunchPlan
	_, err = wallet.Apply(ctx, a.store, plan.Debit, func(ctx context.Context, w wallet.Plan) error {
		p := plan.Paying(w)
		resp, err := responseOf(idem, p.Answer)
		if err != nil {
			return err
		}
		p.Response = resp
		committed = p
		return a.store.CommitLaunch(ctx, p)
	})
	gone, isGone := errors.AsType[*RefGone](err)
	switch {
	case errors.Is(err, ErrMoved):
		// Another launch or an edit got there first.
		now, err := a.Campaign(ctx, orgID, campaignID)
		if err != nil {
			return Launch{}, err
		}
		return Launch{}, LaunchRaced(now)
	case errors.Is(err, ErrLaunched):
		return Launch{}, AlreadyLaunched(campaignID)
	case isGone:
		return Launch{}, RefGoneError(gone.Ref)
	case err != nil:
		return Launch{}, err
	}
	return committed.Answer, nil
}

// launchState loads the campaign and what its launch is decided from: the
// members of its lists, its template and gifts (CheckLaunchable refuses a
// campaign that cannot be launched before anything else is read).
func (a *App) launchState(ctx context.Context, orgID, campaignID, userID string) (LaunchState, error) {
	c, err := a.Campaign(ctx, orgID, campaignID)
	if err != nil {
		return LaunchState{}, err
	}
	if err := CheckLaunchable(c); err != nil {
		return LaunchState{}, err
	}
	lists := make([]ListMembers, len(c.CampaignData.ContactListIDs))
	for i, id := range c.CampaignData.ContactListIDs {
		l, err := a.store.ContactList(ctx, orgID, id)
		if err != nil {
			return LaunchState{}, RefMissing(err, gifting.Ref{Kind: gifting.RefContactList, ID: id})
		}
		ids, err := a.store.ListMemberIDs(ctx, orgID, id)
		if err != nil {
			return LaunchState{}, err
		}
		lists[i] = ListMembers{Count: l.ContactCount, IDs: ids}
	}
	var (
		t     *gifting.Template
		gifts []gifting.Gift
	)
	if id := c.CampaignData.EmailTemplateID; id != "" {
		got, err := a.store.Template(ctx, orgID, id)
		if err != nil {
			return LaunchState{}, RefMissing(err, gifting.Ref{Kind: gifting.RefTemplate, ID: id})
		}
		t = &got
	}
	if ids := c.CampaignData.GiftIDs; len(ids) > 0 {
		if gifts, err = a.store.Gifts(ctx, orgID, ids); err != nil {
			return LaunchState{}, GiftsMissing(err)
		}
	}
	return LaunchState{OrgID: orgID, Campaign: c, Contacts: CountContacts(lists), Gifts: gifts,
		Refs: OwnRefs(c, t, gifts), UserID: userID, Now: a.store.Now()}, nil
}

// RunScheduledLaunch is the job of a draft whose scheduledAt has come (the
// scheduler runs it from the due index): it launches the campaign as POST
// …/launch does (credits, their checks, the launch job), on behalf of
// whoever last edited it. A launch refused for a reason the caller would
// get as an error (too few credits, no contacts, …) is recorded as the
// campaign's reason and the draft stops being due, so it is not retried
// every lease; anything else (storage unavailable) fails the job, which a
// later tick retries.
func (a *App) RunScheduledLaunch(ctx context.Context, orgID, campaignID string) error {
	c, err := a.store.LoadCampaign(ctx, orgID, campaignID)
	if errors.Is(err, ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return err
	}
	at := c.CampaignData.ScheduledAt
	if c.Status != Draft || at == nil || at.After(a.store.Now()) {
		return nil // launched, unscheduled or rescheduled since the tick saw it
	}
	_, _, err = a.Launch(ctx, orgID, c.CampaignID, c.LastUpdatedBy, nil)
	var refused *gifting.Error
	if errors.As(err, &refused) && !slices.Contains(transient, refused.Code) {
		a.cfg.Logger(ctx).InfoContext(ctx, "scheduled launch refused", slog.String("organizationId", orgID),
			slog.String("campaignId", c.CampaignID), slog.String("code", string(refused.Code)))
		return a.store.ScheduledLaunchFailed(ctx, orgID, c.CampaignID, "scheduled launch failed: "+refused.Message)
	}
	return err
}

// transient are the error codes of a launch that may succeed if tried
// again as it is.
var transient = []gifting.Code{gifting.CodeInternal, gifting.CodeUnavailable, gifting.CodeRateLimited}
