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
	// Message is the campaign's default note (Recipient.Note).
	Message string
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
