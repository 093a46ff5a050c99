package campaign

import (
	"fmt"

	"github.com/giftcampaign/service/shared/gifting"
)

// CreditsFor returns the price of one recipient in credits for gifts: the
// highest gift price in whole credits (gifting.CreditsForPrice). A price
// out of range (a gift stored before prices were bounded) is a
// VALIDATION_FAILED.
func CreditsFor(gifts []gifting.Gift) (int64, error) {
	var top int64
	for _, g := range gifts {
		c, err := gifting.CreditsForPrice(g.Price)
		if err != nil {
			return 0, fmt.Errorf("gift %q: %w", g.GiftID, err)
		}
		top = max(top, c)
	}
	return top, nil
}

// CatalogFloor returns the lowest price of a recipient a campaign of gifts
// may set: the highest price, in whole credits, among the service
// catalog's gifts (IsDelightloop), so no campaign gives the catalog's gifts
// away below their price. An organization's own gifts set no floor: their
// price is the organization's business. 0 when gifts holds no catalog gift.
func CatalogFloor(gifts []gifting.Gift) (int64, error) {
	var catalog []gifting.Gift
	for _, g := range gifts {
		if g.IsDelightloop {
			catalog = append(catalog, g)
		}
	}
	return CreditsFor(catalog)
}

// Price fixes c's price of a recipient from its gifts: the dearest gift in
// whole credits, unless c sets its own price, which may not be below the
// catalog price of its catalog gifts (CatalogFloor). Errors:
// VALIDATION_FAILED naming campaignData.creditsPerRecipient (below the
// floor) or campaignData.giftIds (a gift's price out of range).
func Price(c *Campaign, gifts []gifting.Gift) error {
	refuse := func(field, problem string) error {
		return &gifting.Error{Code: gifting.CodeValidation, Message: "The campaign's price is not valid; see details.",
			Details: map[string]string{field: problem}}
	}
	price, err := CreditsFor(gifts)
	if err != nil {
		// A gift stored before prices were bounded.
		return refuse("campaignData.giftIds", "a gift's price is out of range: "+gifting.ErrorMessage(err))
	}
	if !c.CampaignData.PriceSet {
		c.CampaignData.CreditsPerRecipient = price
		return nil
	}
	floor, err := CatalogFloor(gifts)
	if err != nil {
		return refuse("campaignData.giftIds", "a gift's price is out of range: "+gifting.ErrorMessage(err))
	}
	if c.CampaignData.CreditsPerRecipient < floor {
		return refuse("campaignData.creditsPerRecipient",
			fmt.Sprintf("must be at least %d, the catalog price of the campaign's dearest service-catalog gift", floor))
	}
	return nil
}

// PriceOutOfBounds is the CONFLICT of a campaign whose price per
// recipient, as stored (by code before the bounds existed), is outside 0
// to gifting.MaxCreditsPerRecipient: it takes nobody.
func (c Campaign) PriceOutOfBounds() error {
	price := c.CampaignData.CreditsPerRecipient
	if price < 0 || price > gifting.MaxCreditsPerRecipient {
		return gifting.Errorf(gifting.CodeConflict,
			"campaign %q is priced at %d credits a recipient, outside 0 to %d; set campaignData.creditsPerRecipient",
			c.CampaignID, price, gifting.MaxCreditsPerRecipient)
	}
	return nil
}

// UnderPriced is the CONFLICT of a campaign whose own price (PriceSet) is
// below the catalog price of its service-catalog gifts (CatalogFloor): one
// stored before that rule, or whose catalog gift became dearer since. A
// price derived from the gifts is the catalog's own at the time it was
// fixed and stands. gifts are the campaign's gifts as read (add-recipient
// reads them when the campaign has only one; create and PATCH checked the
// others; a launch reads them all).
func (c Campaign) UnderPriced(gifts []gifting.Gift) error {
	if len(gifts) == 0 || !c.CampaignData.PriceSet {
		return nil
	}
	floor, err := CatalogFloor(gifts)
	if err == nil && c.CampaignData.CreditsPerRecipient >= floor {
		return nil
	}
	return gifting.Errorf(gifting.CodeConflict,
		"campaign %q is priced at %d credits a recipient, below the catalog price of its gifts; update campaignData.creditsPerRecipient",
		c.CampaignID, c.CampaignData.CreditsPerRecipient)
}
