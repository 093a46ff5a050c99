package service

import (
	"context"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/metrics"
)

// ExpiryStore is the storage of claim expiry.
type ExpiryStore interface {
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
	case c.Status != campaign.Completed:
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
