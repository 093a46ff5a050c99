package service

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/metrics"
)

// LaunchStore is the storage of launches.
type LaunchStore interface {
	// LaunchCampaignIdempotent takes the launch's credits and moves the
	// campaign to preparing, with its launch record due for the scheduler.
	LaunchCampaignIdempotent(ctx context.Context, orgID, campaignID, userID string, idem *gifting.Idempotent[gifting.Launch]) (gifting.Launch, *gifting.StoredResponse, error)
	// LaunchSlice writes one slice of a launch's recipients.
	LaunchSlice(ctx context.Context, orgID, campaignID, cursor, publicBaseURL string, invite gifting.Inviter) (next string, done bool, err error)
	// ScheduledLaunchFailed records why a draft's scheduled launch could
	// not happen and stops it being due.
	ScheduledLaunchFailed(ctx context.Context, orgID, campaignID, reason string) error
}

// LaunchCampaign accepts a launch: the credits are taken and the campaign
// is preparing when it returns; the launch job does the rest. The job's
// message only makes the launch start at once: the launch record, written
// with the debit, is due for the scheduler tick, which finishes the launch
// (or gives the credits back) when the message is lost. So a failed
// enqueue is logged, not returned: the launch is committed. A non-nil
// stored response is the first response to idem's key: nothing was done.
//
// Errors: NOT_FOUND (campaign), CONFLICT (not a draft, no contacts, price
// out of bounds), INSUFFICIENT_CREDITS (nothing written),
// IDEMPOTENCY_KEY_REUSED.
func (s *Service) LaunchCampaign(ctx context.Context, orgID, campaignID, userID string, idem *gifting.Idempotent[gifting.Launch]) (gifting.Launch, *gifting.StoredResponse, error) {
	l, stored, err := s.store.LaunchCampaignIdempotent(ctx, orgID, campaignID, userID, idem)
	if err != nil || stored != nil {
		return l, stored, err
	}
	if err := s.enqueue(ctx, jobs.Job{Kind: gifting.JobLaunch, OrgID: orgID, Ref: campaignID}); err != nil {
		Logger(ctx).WarnContext(ctx, "launch job not enqueued; the scheduler will run the launch",
			slog.String("organizationId", orgID), slog.String("campaignId", campaignID), slog.String("error", err.Error()))
	}
	metrics.Count(orgID, map[string]int64{metrics.LaunchesAccepted: 1, metrics.CreditsSpent: l.CreditsDeducted})
	return l, nil, nil
}

// runScheduledLaunch is the job of a draft whose scheduledAt has come (the
// scheduler runs it from the due index): it launches the campaign through
// LaunchCampaign, as POST …/launch does (credits, their checks, the launch
// job), on behalf of whoever last edited it. A launch refused for a reason
// the caller would get as an error (too few credits, no contacts, …) is
// recorded as the campaign's reason and the draft stops being due, so it is
// not retried every lease; anything else (storage unavailable) fails the
// job, which a later tick retries.
func (s *Service) runScheduledLaunch(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	c, err := s.store.Campaign(ctx, j.OrgID, j.Ref)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return nil, nil // deleted meanwhile
	}
	if err != nil {
		return nil, err
	}
	at := c.CampaignData.ScheduledAt
	if c.Status != gifting.CampaignDraft || at == nil || at.After(s.store.Now()) {
		return nil, nil // launched, unscheduled or rescheduled since the tick saw it
	}
	_, _, err = s.LaunchCampaign(ctx, j.OrgID, c.CampaignID, c.LastUpdatedBy, nil)
	var refused *gifting.Error
	if errors.As(err, &refused) && !slices.Contains(transient, refused.Code) {
		Logger(ctx).InfoContext(ctx, "scheduled launch refused", slog.String("organizationId", j.OrgID),
			slog.String("campaignId", c.CampaignID), slog.String("code", string(refused.Code)))
		return nil, s.store.ScheduledLaunchFailed(ctx, j.OrgID, c.CampaignID, "scheduled launch failed: "+refused.Message)
	}
	return nil, err
}

// transient are the error codes of a launch that may succeed if tried
// again as it is.
var transient = []gifting.Code{gifting.CodeInternal, gifting.CodeUnavailable, gifting.CodeRateLimited}

// runLaunch does one slice of a launch job.
func (s *Service) runLaunch(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	ctx = WithLogger(ctx, s.log.With(slog.String("job", j.String())))
	next, done, err := s.store.LaunchSlice(ctx, j.OrgID, j.Ref, j.Cursor, s.cfg.PublicBaseURL, s.launchInviter(j.OrgID))
	if err != nil || done {
		return nil, err
	}
	j.Cursor = next
	return &j, nil
}

// launchSendBudget bounds the time a launch slice spends sending its
// invitations: half the launch record's lease in the due index (one
// minute, dynamo.DueLease), which the slice's count renewed just before,
// so the lease still holds when the next slice claims its contacts (no
// tick takes over a launch whose driver is busy sending), and far inside
// the worker's 150 s timeout. The invitations it leaves keep their claims
// and go out by the tick when the claims' leases end.
const launchSendBudget = 30 * time.Second

// launchInviter sends the invitations of the recipients a launch slice
// writes, as add-recipient does (sendInvitation), or is nil when no mailer
// is configured: the recipients then stay pending, invitation scheduled.
// Sends are sequential (each recorded send moves the campaign's counters,
// which concurrent ones would fight over) and stop at launchSendBudget,
// or launchSendMargin before the context's deadline.
func (s *Service) launchInviter(orgID string) gifting.Inviter {
	if s.cfg.Mailer == nil {
		return nil
	}
	return func(ctx context.Context, invs []gifting.Invitation) {
		stop := s.store.Now().Add(launchSendBudget)
		for i, inv := range invs {
			deadline, ok := ctx.Deadline()
			if s.store.Now().After(stop) || (ok && time.Until(deadline) < launchSendMargin) {
				Logger(ctx).InfoContext(ctx, "launch slice out of time for sending; the rest go out after their claims' lease",
					slog.Int("left", len(invs)-i))
				return
			}
			s.sendInvitation(ctx, orgID, inv)
		}
	}
}

// launchSendMargin is the time a launch slice keeps before its context's
// deadline: one send with the mailer's retries and its record.
const launchSendMargin = 10 * time.Second
