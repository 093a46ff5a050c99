package catalog

import (
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// GiftPatch is a partial update of a tenant's own gift: nil fields are
// left as they are; a list that is sent replaces the stored one.
type GiftPatch struct {
	Name      *string
	Price     *float64
	Currency  *string
	Inventory *Inventory
	// Type, when sent, must be the gift's own: a gift's type never
	// changes (VALIDATION_FAILED otherwise).
	Type *GiftType
	// Variants, when not nil, replace the gift's variants: one sent with
	// a variantId keeps that variant (its counts as sent), one without is
	// new (WithVariantIDs); an empty list removes them all.
	Variants []Variant
	// LowStockThreshold, when set, sets the threshold (ClearLowStock
	// removes it).
	LowStockThreshold *int
	ClearLowStock     bool
	Status            *GiftStatus
	ShortDescription  *string
	Description       *string
	ImageURLs         []string
	Dimensions        *Dimensions
	Weight            *Weight
	CollectionIDs     []string
}

// Apply checks the patched gift exactly as a new gift is checked
// (CheckGift: the price within gifting.CreditsForPrice's bounds) and, when
// it passes, applies it to g and moves g's updatedAt to now. It returns
// VALIDATION_FAILED and leaves g unchanged otherwise.
func (p GiftPatch) Apply(g *Gift, now time.Time) error {
	if p.Type != nil && *p.Type != g.Type && !(*p.Type == GiftPhysical && g.Type == "") {
		var pr gifting.Problems
		pr.Add("type", "cannot change: a gift's type is set when it is created")
		return pr.Err()
	}
	if p.Inventory != nil && g.Type == GiftDigital {
		var pr gifting.Problems
		pr.Add("inventory", "of a digital gift moves only with its codes (POST /gifts/{giftId}/codes)")
		return pr.Err()
	}
	n := *g
	set(&n.Name, p.Name)
	set(&n.Price, p.Price)
	set(&n.Currency, p.Currency)
	set(&n.Inventory, p.Inventory)
	if p.Variants != nil {
		n.Variants = slices.Clone(p.Variants)
		if p.Inventory == nil {
			n.Inventory = Inventory{} // the variants' sum (CheckGift)
		}
	}
	if p.LowStockThreshold != nil {
		t := *p.LowStockThreshold
		n.LowStockThreshold = &t
	}
	if p.ClearLowStock {
		n.LowStockThreshold = nil
	}
	set(&n.Status, p.Status)
	set(&n.ShortDescription, p.ShortDescription)
	set(&n.Description, p.Description)
	if p.ImageURLs != nil {
		n.ImageURLs = slices.Clone(p.ImageURLs)
	}
	if p.Dimensions != nil {
		n.Dimensions = p.Dimensions
	}
	if p.Weight != nil {
		n.Weight = p.Weight
	}
	if p.CollectionIDs != nil {
		n.CollectionIDs = slices.Clone(p.CollectionIDs)
	}
	err := CheckGift(&n)
	if err == nil {
		var vp gifting.Problems
		checkVariantMove(&vp, *g, n)
		err = vp.Err()
	}
	if err != nil {
		return err
	}
	n.UpdatedAt = now
	*g = n
	return nil
}

// WithVariantIDs is p with an id from newID for each variant it sends
// without one (a new variant), for gift g as read. A variantId sent that
// is none of g's variants is VALIDATION_FAILED.
func (p GiftPatch) WithVariantIDs(g Gift, newID func() string) (GiftPatch, error) {
	if p.Variants == nil {
		return p, nil
	}
	var probs gifting.Problems
	checkVariantIDs(&probs, g, p.Variants)
	if err := probs.Err(); err != nil {
		return p, err
	}
	p.Variants = slices.Clone(p.Variants)
	AssignVariantIDs(p.Variants, newID)
	return p, nil
}

// TemplatePatch is a partial update of a tenant's own template: nil
// fields are left as they are; tags, when sent, replace the stored tags,
// and templateData, when sent, replaces the stored one whole.
type TemplatePatch struct {
	TemplateName     *string
	TemplateCategory *string
	Tags             []string
	SuccessRate      *float64
	TemplateData     *TemplateData
	Description      *string
	ImageURL         *string
}

// Apply checks the patched template as a new template is checked
// (CheckTemplate) and, when it passes, applies it to t and moves t's
// updatedAt to now. It returns VALIDATION_FAILED and leaves t unchanged
// otherwise.
func (p TemplatePatch) Apply(t *Template, now time.Time) error {
	n := *t
	set(&n.TemplateName, p.TemplateName)
	set(&n.TemplateCategory, p.TemplateCategory)
	if p.Tags != nil {
		n.Tags = slices.Clone(p.Tags)
	}
	set(&n.SuccessRate, p.SuccessRate)
	set(&n.TemplateData, p.TemplateData)
	set(&n.Description, p.Description)
	set(&n.ImageURL, p.ImageURL)
	// A template stored before its look was checked (an http logo, a
	// colour below the contrast rule) keeps that look until templateData
	// itself is patched: a rename must not fail on a field it leaves
	// alone. The pages and emails skip such a look (branding.Resolve).
	goal := n.TemplateData.Goal
	if p.TemplateData == nil {
		n.TemplateData.Goal.Logo, n.TemplateData.Goal.LogoColor = "", ""
	}
	if err := CheckTemplate(&n); err != nil {
		return err
	}
	if p.TemplateData == nil {
		n.TemplateData.Goal.Logo, n.TemplateData.Goal.LogoColor = goal.Logo, goal.LogoColor
	}
	n.UpdatedAt = now
	*t = n
	return nil
}

// set copies *v into *dst when v is not nil.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
