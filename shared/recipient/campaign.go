package recipient

import (
	"slices"

	"github.com/giftcampaign/service/shared/gifting"
)

// Campaign is a recipient's campaign as the recipient slice needs it: the
// campaign slice's answers to the questions this slice's rules ask, built
// by that slice (campaign.Campaign.ForRecipients). The campaign slice
// builds recipients in its launch with this slice's types, so this slice
// does not import it.
type Campaign struct {
	CampaignID, Name, Description string
	// Status is the campaign's state, as a refusal names it.
	Status string
	// Deleted and Completed: its recipients can no longer claim.
	Deleted, Completed bool
	// Accepts reports whether it takes new recipients.
	Accepts bool
	// SendsEmails reports whether it sends now (preparing or live): an
	// invitation due at once goes out right after the write.
	SendsEmails bool
	// Sending are the email kinds it sends now: every kind while it
	// sends, those that follow a delivery once it is completed, none
	// while it is a draft, paused or deleted.
	Sending []string
	// Price is what a recipient costs.
	Price int64
	// TemplateID and GiftIDs are its template and its gifts.
	TemplateID string
	GiftIDs    []string
	// ClaimExpiryDays is how long its recipients have to claim their gift.
	ClaimExpiryDays int
	// Pricing is the campaign's rules on its price; nil checks nothing.
	Pricing Pricing
	// ChoiceCollectionID, when set, is the collection its recipients may
	// swap within (Offers).
	ChoiceCollectionID string
	// Message is the campaign's default note (Recipient.Note).
	Message string
	// Meeting is the meeting link its recipients' pages show, its own or
	// its template's (gifting.EffectiveMeeting); nil for none.
	Meeting *gifting.Meeting
	// Look is its template's logo and colour as the campaign copied them
	// (campaign.Data.TemplateLook); nil when it holds no copy.
	Look *gifting.TemplateLook
}

// Offers reports whether a recipient of c holding held credits may choose
// gift g: one of c's gifts, or, with a swap (ChoiceCollectionID), an
// available gift of that collection whose price in credits
// (gifting.CreditsForPrice) is at most held. Stock is checked apart.
func (c Campaign) Offers(g gifting.Gift, held int64) bool {
	if slices.Contains(c.GiftIDs, g.GiftID) {
		return true
	}
	if c.ChoiceCollectionID == "" || g.Status != gifting.GiftAvailable || !slices.Contains(g.CollectionIDs, c.ChoiceCollectionID) {
		return false
	}
	price, err := gifting.CreditsForPrice(g.Price)
	return err == nil && price <= held
}

// WithSwaps is gifts, c's own gifts, followed by those of collection (the
// gifts of c's choice collection as read) that c offers a recipient
// holding held credits (Offers) and that are not among gifts already.
func (c Campaign) WithSwaps(gifts, collection []gifting.Gift, held int64) []gifting.Gift {
	out := slices.Clip(gifts)
	for _, g := range collection {
		known := slices.ContainsFunc(out, func(o gifting.Gift) bool { return o.GiftID == g.GiftID })
		if !known && c.Offers(g, held) {
			out = append(out, g)
		}
	}
	return out
}

// Pricing is the campaign slice's rules on a campaign's price.
type Pricing interface {
	// PriceOutOfBounds is the CONFLICT of a price stored out of bounds.
	PriceOutOfBounds() error
	// UnderPriced is the CONFLICT of a price below the catalog price of
	// gifts, the campaign's gifts as read.
	UnderPriced(gifts []gifting.Gift) error
}

// Sends reports whether c sends its email of kind now.
func (c Campaign) Sends(kind string) bool { return slices.Contains(c.Sending, kind) }

// priceOutOfBounds is c's Pricing.PriceOutOfBounds, nil without rules.
func (c Campaign) priceOutOfBounds() error {
	if c.Pricing == nil {
		return nil
	}
	return c.Pricing.PriceOutOfBounds()
}

// underPriced is c's Pricing.UnderPriced, nil without rules.
func (c Campaign) underPriced(gifts []gifting.Gift) error {
	if c.Pricing == nil {
		return nil
	}
	return c.Pricing.UnderPriced(gifts)
}
