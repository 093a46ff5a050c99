package catalog

import (
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// NewGift is g, checked (CheckGift), as orgID's own new gift named id,
// created at now. Errors: CheckGift's.
func NewGift(g Gift, orgID, id string, now time.Time) (Gift, error) {
	if err := CheckGift(&g); err != nil {
		return Gift{}, err
	}
	g.GiftID, g.OrganizationID, g.IsDelightloop, g.CreatedAt, g.UpdatedAt = id, orgID, false, now, now
	return g, nil
}

// NewTemplate is t, checked (CheckTemplate), as orgID's own new template
// named id, created at now. Errors: CheckTemplate's.
func NewTemplate(t Template, orgID, id string, now time.Time) (Template, error) {
	if err := CheckTemplate(&t); err != nil {
		return Template{}, err
	}
	t.TemplateID, t.OrganizationID, t.IsDelightloop, t.CreatedAt, t.UpdatedAt = id, orgID, false, now, now
	return t, nil
}

// SeedGift is the service catalog's gift g as a seed writes it: owned by
// the catalog, dated as it says (now when it says nothing), checked
// (CheckGift). A gift already stored keeps the inventory stored: claims
// have moved its units from available to reserved since it was seeded, and
// a seed giving them back would let more units be claimed than exist. The
// seed's inventory is a new gift's initial stock. Errors: CheckGift's,
// naming the gift.
func SeedGift(g Gift, stored *Gift, now time.Time) (Gift, error) {
	g.OrganizationID, g.IsDelightloop = gifting.CatalogOrgID, true
	if g.CreatedAt.IsZero() {
		g.CreatedAt = now
	}
	g.UpdatedAt = g.CreatedAt
	if err := CheckGift(&g); err != nil {
		return Gift{}, fmt.Errorf("catalog gift %s: %w", g.GiftID, err)
	}
	if stored != nil {
		g.Inventory = stored.Inventory
		if len(g.Variants) > 0 {
			keepVariantStock(g.Variants, stored.Variants)
			g.Inventory = VariantsSum(g.Variants)
		}
	}
	return g, nil
}

// SeedTemplate is the service catalog's template t as a seed writes it;
// see SeedGift. Errors: CheckTemplate's, naming the template.
func SeedTemplate(t Template, now time.Time) (Template, error) {
	t.OrganizationID, t.IsDelightloop = gifting.CatalogOrgID, true
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now
	}
	t.UpdatedAt = t.CreatedAt
	if err := CheckTemplate(&t); err != nil {
		return Template{}, fmt.Errorf("catalog template %s: %w", t.TemplateID, err)
	}
	return t, nil
}

// keepVariantStock gives each variant of vs that stored has (by id) the
// counts stored: a seed sets a new variant's initial stock only.
func keepVariantStock(vs, stored []Variant) {
	for i := range vs {
		for _, s := range stored {
			if s.VariantID == vs[i].VariantID {
				vs[i].Inventory = s.Inventory
			}
		}
	}
}
