package dynamo

import (
	"context"
	"errors"

	"github.com/giftcampaign/service/shared/campaign"
)

// The bridge: the event slice reads a campaign it links with the error a
// user sees for a missing one (the recipient slice reads its own view,
// RecipientCampaign). When it loads through a port of its own
// (LoadCampaign), this file goes.

// Campaign returns a campaign of org, normalized. A missing campaign, a
// deleted one and another organization's are all NOT_FOUND
// (campaign.NotFound).
func (s *Store) Campaign(ctx context.Context, orgID, campaignID string) (campaign.Campaign, error) {
	c, err := s.LoadCampaign(ctx, orgID, campaignID)
	if errors.Is(err, campaign.ErrNotFound) {
		return c, campaign.NotFound(campaignID)
	}
	return c, err
}
