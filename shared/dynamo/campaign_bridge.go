package dynamo

import (
	"context"
	"errors"

	"github.com/giftcampaign/service/shared/campaign"
)

// The bridge: the areas that have no slice of their own yet (the
// recipients' emails and expiry, events) read a campaign with the error a
// user sees for a missing one. When they move into their slices, each
// loads through its port (LoadCampaign) and this file goes.

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
