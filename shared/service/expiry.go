package service

import (
	"context"
	"log/slog"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/metrics"
)

// ExpiryStore is the storage of claim expiry.
type ExpiryStore interface {
	// MoveCampaign performs a user's lifecycle action on a campaign.
	MoveCampaign(ctx context.Context, orgID, campaignID string, act gifting.CampaignAction, userID, reason string) (gifting.Campaign, error)
	// DeleteCampaign soft-deletes a campaign.
	DeleteCampaign(ctx context.Context, orgID, campaignID, userID string) (gifting.Campaign, error)
	// ExpireRecipient moves an unclaimed recipient to expired with its
	// refund (only once its expiry has come, with onlyDue); expired is
	// false when there was nothing to do.
	ExpireRecipient(ctx context.Context, orgID, campaignID, recipientID string, onlyDue bool) (expired bool, err error)
	// UnclaimedRecipients returns a slice of a campaign's unclaimed
	// recipients after cursor, the next cursor, and done after the last.
	UnclaimedRecipients(ctx context.Context, orgID, campaignID, cursor string) (ids []string, next string, done bool, err error)
	// CampaignExpiryProgressed records where the expiry of a completed or
	// deleted campaign stopped (its next cursor), or with done that it is
	// over, on its due item.
	CampaignExpiryProgressed(ctx context.Context, orgID, campaignID, cursor string, done bool) error
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
// campaign: each unclaimed recipient of the slice expires with its refund.
// A recipient claimed or expired meanwhile is left alone, so a slice run
// twice refunds once. The slice's cursor goes to the expiry's due item,
// and the last slice removes it, so the tick continues from there only
// work whose message was lost.
func (s *Service) runCampaignExpire(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	c, err := s.store.Campaign(ctx, j.OrgID, j.Ref)
	switch {
	case gifting.ErrorCode(err) == gifting.CodeNotFound:
		// Deleted: its recipients can no longer claim. (A campaign that
		// never existed has no recipients to read.)
	case err != nil:
		return nil, err
	case c.Status != gifting.CampaignCompleted:
		return nil, nil // only a completed or deleted campaign expires everyone at once
	}
	ids, next, done, err := s.store.UnclaimedRecipients(ctx, j.OrgID, j.Ref, j.Cursor)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if err := s.expire(ctx, j.OrgID, j.Ref, id, false); err != nil {
			return nil, err
		}
	}
	if err := s.store.CampaignExpiryProgressed(ctx, j.OrgID, j.Ref, next, done); err != nil {
		return nil, err
	}
	if done {
		return nil, nil
	}
	j.Cursor = next
	return &j, nil
}

// expire expires a recipient (see ExpiryStore.ExpireRecipient) and counts
// it; a recipient gone with its campaign is nothing to do.
func (s *Service) expire(ctx context.Context, orgID, campaignID, recipientID string, onlyDue bool) error {
	expired, err := s.store.ExpireRecipient(ctx, orgID, campaignID, recipientID, onlyDue)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return nil
	}
	if err != nil || !expired {
		return err
	}
	metrics.Count(orgID, map[string]int64{metrics.RecipientsExpired: 1})
	return nil
}
