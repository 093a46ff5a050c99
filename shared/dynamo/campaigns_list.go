package dynamo

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// ListCampaigns returns a page of org's campaigns (never deleted ones)
// that f keeps, sorted by sortBy (one of campaign.Sorts; ties by id in the
// same order), and how many f keeps.
//
// Costs: the default list (no filter, by createdAt) is O(page): campaign
// ids are ULIDs, so the CAMPAIGN# range is already in creation order; the
// total comes from the campaigns counter, and a deep page first skips in
// the Slim index (keys only). Any filter or other sort reads every campaign
// of the organization in one paginated Query and sorts in memory: campaigns
// per organization are few (hundreds), about 1 KB each, so this is about
// 1 read unit per 8 campaigns.
func (s *Store) ListCampaigns(ctx context.Context, orgID string, f campaign.Filter, sortBy string, order gifting.SortOrder, page gifting.PageRequest) ([]campaign.Campaign, int, error) {
	if f.Empty() && (sortBy == "" || sortBy == campaign.SortCreatedAt) {
		return s.campaignPage(ctx, orgID, order, page)
	}
	items, err := s.queryPrefix(ctx, orgPK(orgID), campaignPrefix, false)
	if err != nil {
		return nil, 0, err
	}
	var matched []campaign.Campaign
	for _, it := range items {
		c, err := decodeCampaign(it)
		if err != nil {
			return nil, 0, err
		}
		if f.Keeps(c) {
			matched = append(matched, c)
		}
	}
	slices.SortFunc(matched, func(a, b campaign.Campaign) int {
		var by int
		switch sortBy {
		case campaign.SortUpdatedAt:
			by = a.UpdatedAt.Compare(b.UpdatedAt)
		case campaign.SortName:
			by = cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		case campaign.SortStatus:
			by = cmp.Compare(a.Status, b.Status)
		default:
			by = a.CreatedAt.Compare(b.CreatedAt)
		}
		if by == 0 {
			by = cmp.Compare(a.CampaignID, b.CampaignID)
		}
		if order == gifting.Desc {
			by = -by
		}
		return by
	})
	lo, hi := page.Window(len(matched))
	return matched[lo:hi], len(matched), nil
}

// campaignPage reads one page of org's campaigns in creation order, and the
// campaigns counter.
func (s *Store) campaignPage(ctx context.Context, orgID string, order gifting.SortOrder, page gifting.PageRequest) ([]campaign.Campaign, int, error) {
	items, total, err := s.orderedPage(ctx, orgID, campaignsOf(orgID), order, page)
	if err != nil {
		return nil, 0, err
	}
	out := make([]campaign.Campaign, 0, len(items))
	for _, it := range items {
		c, err := decodeCampaign(it)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, c)
	}
	return out, total, nil
}
