package service

import (
	"context"

	"github.com/giftcampaign/service/shared/jobs"
)

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
