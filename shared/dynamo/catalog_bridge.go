package dynamo

import (
	"context"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

// The bridge: the areas that have no slice of their own yet read gifts and
// templates in gifting's shapes, which their own storage keeps (a
// recipient's kit, the recipient pages, the claim): campaign create and
// edit and the launch (Template, Gifts; Gift, which the chaos run's
// checks read too). A gift or template that is not
// there is NOT_FOUND as the catalog slice shows it. When those areas move
// into slices, they read through the catalog's port (as audience pricing
// does) and this file goes.

// Gift returns a gift visible to org (its own, or the service catalog's),
// or NOT_FOUND.
func (s *Store) Gift(ctx context.Context, orgID, giftID string) (gifting.Gift, error) {
	var g gifting.Gift
	found, err := s.visible(ctx, orgID, giftSK(giftID), &g)
	if err == nil && !found {
		err = catalog.GiftNotFound(giftID)
	}
	return g, err
}

// Template returns a template visible to org, or NOT_FOUND.
func (s *Store) Template(ctx context.Context, orgID, templateID string) (gifting.Template, error) {
	var t gifting.Template
	found, err := s.visible(ctx, orgID, templateSK(templateID), &t)
	if err == nil && !found {
		err = catalog.TemplateNotFound(templateID)
	}
	return t, err
}

// Gifts returns the gifts visible to org with the given ids, in the order
// of ids, read in one request. It returns NOT_FOUND naming the first id
// that is not visible.
func (s *Store) Gifts(ctx context.Context, orgID string, ids []string) ([]gifting.Gift, error) {
	keys := make([]item, 0, 2*len(ids))
	for _, id := range ids {
		keys = append(keys, key(orgPK(orgID), giftSK(id)), key(orgPK(gifting.CatalogOrgID), giftSK(id)))
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]gifting.Gift, len(items))
	for _, it := range items {
		var g gifting.Gift
		if err := unmarshal(it, &g); err != nil {
			return nil, err
		}
		byID[g.GiftID] = g
	}
	out := make([]gifting.Gift, 0, len(ids))
	for _, id := range ids {
		g, ok := byID[id]
		if !ok {
			return nil, catalog.GiftNotFound(id)
		}
		out = append(out, g)
	}
	return out, nil
}
