package service

import (
	"context"
	"log/slog"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
)

// ExpiryStore is the storage of claim expiry.
type ExpiryStore interface {
	// MoveCampaign performs a user's lifecycle action on a campaign.
	MoveCampaign(ctx context.Context, orgID, campaignID string, act gifting.CampaignAction, userID, reason string) (gifting.Campaign, error)
	// DeleteCampaign soft-deletes a campaign.
	DeleteCampaign(ctx context.Context, orgID, campaignID, userID string) (gifting.Campaign, error)
}

// MoveCampaign performs a user's lifecycle action (pause, resume,
// complete) on a campaign and returns it as written. Completing it also
// starts the job that expires its unclaimed recipients with their refunds
// (gifting.JobCampaignExpire); a failed enqueue is logged, not returned:
// the completion committed that job as due work, which the scheduler's
// tick runs a lease (dynamo.DueLease) later.
//
// Errors: NOT_FOUND (campaign), CONFLICT (the action does not apply).
func (s *Service) MoveCampaign(ctx context.Context, orgID, campaignID string, act gifting.CampaignAction, userID, reason string) (gifting.Campaign, error) {
	c, err := s.store.MoveCampaign(ctx, orgID, campaignID, act, userID, reason)
	if err != nil || act.To != gifting.CampaignCompleted {
		return c, err
	}
	s.startExpiry(ctx, orgID, campaignID)
	return c, nil
}

// DeleteCampaign soft-deletes a campaign (not while it is preparing). Its
// recipients can no longer claim, so, as completing does, it starts the
// job that expires the unclaimed ones with their refunds; a failed enqueue
// is logged, not returned: the deletion committed that job as due work,
// which the scheduler's tick runs a lease later.
//
// Errors: NOT_FOUND (campaign), CONFLICT (preparing).
func (s *Service) DeleteCampaign(ctx context.Context, orgID, campaignID, userID string) (gifting.Campaign, error) {
	c, err := s.store.DeleteCampaign(ctx, orgID, campaignID, userID)
	if err != nil {
		return c, err
	}
	s.startExpiry(ctx, orgID, campaignID)
	return c, nil
}

// startExpiry enqueues the expiry of a campaign's unclaimed recipients
// (gifting.JobCampaignExpire), logging a failure.
func (s *Service) startExpiry(ctx context.Context, orgID, campaignID string) {
	if err := s.enqueue(ctx, jobs.Job{Kind: gifting.JobCampaignExpire, OrgID: orgID, Ref: campaignID}); err != nil {
		Logger(ctx).WarnContext(ctx, "expiry job not enqueued; the scheduler runs it",
			slog.String("organizationId", orgID), slog.String("campaignId", campaignID), slog.String("error", err.Error()))
	}
}

// runCampaignExpire does one slice of the expiry of a completed or deleted
// campaign (the recipient slice's ExpireCampaign), and continues from the
// slice's cursor until the last.
func (s *Service) runCampaignExpire(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	next, done, err := s.recipients.ExpireCampaign(ctx, j.OrgID, j.Ref, j.Cursor)
	if err != nil || done {
		return nil, err
	}
	j.Cursor = next
	return &j, nil
}
