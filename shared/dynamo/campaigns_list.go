package dynamo

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// ListCampaigns returns a page of org's campaigns (never deleted ones)
// matching f, sorted by sortBy (one of CampaignSorts; ties by id in the
// same order), and how many match.
//
// Costs: the default list (no filter, by createdAt) is O(page): campaign
// ids are ULIDs, so the CAMPAIGN# range is already in creation order; the
// total comes from the campaigns counter, and a deep page first skips in
// the Slim index (keys only). Any filter or other sort reads every campaign
// of the organization in one paginated Query and sorts in memory: campaigns
// per organization are few (hundreds), about 1 KB each, so this is about
// 1 read unit per 8 campaigns.
func (s *Store) ListCampaigns(ctx context.Context, orgID string, f gifting.CampaignFilter, sortBy string, order gifting.SortOrder, page gifting.PageRequest) ([]gifting.Campaign, int, error) {
	if f.Empty() && (sortBy == "" || sortBy == gifting.CampaignSortCreatedAt) {
		return s.campaignPage(ctx, orgID, order, page)
	}
	items, err := s.queryPrefix(ctx, orgPK(orgID), campaignPrefix, false)
	if err != nil {
		return nil, 0, err
	}
	var matched []gifting.Campaign
	for _, it := range items {
		var c gifting.Campaign
		if err := unmarshal(it, &c); err != nil {
			return nil, 0, err
		}
		if c.IsDeleted ||
			(f.Status != "" && c.Status != f.Status) ||
			(f.CreatedBy != "" && c.CreatedBy != f.CreatedBy) ||
			(f.CreatedFrom != nil && c.CreatedAt.Before(*f.CreatedFrom)) ||
			(f.CreatedTo != nil && c.CreatedAt.After(*f.CreatedTo)) ||
			!gifting.MatchesSearch(c.Name+"\n"+c.Description, f.Search) {
			continue
		}
		matched = append(matched, c)
	}
	slices.SortFunc(matched, func(a, b gifting.Campaign) int {
		var by int
		switch sortBy {
		case gifting.CampaignSortUpdatedAt:
			by = a.UpdatedAt.Compare(b.UpdatedAt)
		case gifting.CampaignSortName:
			by = cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		case gifting.CampaignSortStatus:
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
func (s *Store) campaignPage(ctx context.Context, orgID string, order gifting.SortOrder, page gifting.PageRequest) ([]gifting.Campaign, int, error) {
	items, total, err := s.orderedPage(ctx, orgID, campaignsOf(orgID), order, page)
	if err != nil {
		return nil, 0, err
	}
	out, err := decodeAll[gifting.Campaign](items)
	return out, total, err
}
