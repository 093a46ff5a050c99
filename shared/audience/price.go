package audience

import (
	"fmt"
	"strings"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

// MaxCreditsPerContact is the highest price of one audience member.
const MaxCreditsPerContact = 1_000_000

// Price is how a new audience's creditRequired is priced: CreditsPerContact
// when set, else the price of GiftID when set, else the cheapest available
// gift the organization can send.
type Price struct {
	CreditsPerContact *int64
	GiftID            string
}

// CheckNew normalizes and checks a new audience and its price: the
// audience's fields (CheckAudience), a stated price between 0 and
// MaxCreditsPerContact, and not both a price and a gift.
// VALIDATION_FAILED names every field at fault.
func CheckNew(a *Audience, price *Price) error {
	var p gifting.Problems
	if c := price.CreditsPerContact; c != nil && (*c < 0 || *c > MaxCreditsPerContact) {
		p.Add("creditsPerContact", "must be between 0 and "+itoa(MaxCreditsPerContact))
	}
	price.GiftID = strings.TrimSpace(price.GiftID)
	if price.CreditsPerContact != nil && price.GiftID != "" {
		p.Add("giftId", "give creditsPerContact or giftId, not both")
	}
	checkAudience(&p, a)
	return p.Err()
}

// PricedAt is the pricing of a stated price of credits a contact.
func PricedAt(credits int64) Meta {
	return Meta{CreditsPerContact: credits, PricedBy: PricedByInput}
}

// PricedBy is the pricing by gift g: its price in whole credits
// (gifting.CreditsForPrice). Errors: VALIDATION_FAILED for a price out of
// range, naming the gift.
func PricedBy(g catalog.Gift) (Meta, error) {
	c, err := gifting.CreditsForPrice(g.Price)
	if err != nil {
		return Meta{}, fmt.Errorf("gift %q: %w", g.GiftID, err)
	}
	return Meta{CreditsPerContact: c, PricedBy: PricedByGift, GiftID: g.GiftID}, nil
}

// PricedByCheapest is the pricing by the cheapest available gift of gifts
// (ties by id), or PricedByNone at 0 when none is available.
func PricedByCheapest(gifts []catalog.Gift) (Meta, error) {
	var cheapest *catalog.Gift
	for i, g := range gifts {
		if g.Status != catalog.GiftAvailable {
			continue
		}
		if cheapest == nil || g.Price < cheapest.Price || (g.Price == cheapest.Price && g.GiftID < cheapest.GiftID) {
			cheapest = &gifts[i]
		}
	}
	if cheapest == nil {
		return Meta{PricedBy: PricedByNone}, nil
	}
	return PricedBy(*cheapest)
}
