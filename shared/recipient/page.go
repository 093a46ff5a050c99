package recipient

import (
	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
)

// Page is what a recipient's page is made of: the recipient, its
// campaign (Deleted when the campaign was deleted), who sends the
// gift and the campaign's gifts that still exist, in the campaign's order.
type Page struct {
	Kind      gifting.PageKind
	Recipient Recipient
	Campaign  Campaign
	// Sender is the organization's display name (its name when it has
	// none).
	Sender string
	// Org is the organization, whose branding the page shows.
	Org   gifting.Organization
	Gifts []gifting.Gift
	// Code is the code of a digital gift the recipient claimed, opened for
	// its landing page (Pages.Landing) and nowhere else.
	Code *giftcodes.Secret
	// Erased is true when the recipient's person was erased on request
	// (shared/erasure): the pages are gone for good.
	Erased bool
}

// Gone reports whether the page is gone for this recipient: their person
// erased, a deleted campaign, or a completed one whose recipient had not claimed the
// gift. A recipient who claimed still follows the gift's journey.
func (p Page) Gone() bool {
	return p.Erased || p.Campaign.Deleted || (p.Campaign.Completed && !p.Recipient.Claimed())
}

// InStock returns the page's gifts with at least one unit available.
func (p Page) InStock() []gifting.Gift {
	var out []gifting.Gift
	for _, g := range p.Gifts {
		if g.InStock() {
			out = append(out, g)
		}
	}
	return out
}
