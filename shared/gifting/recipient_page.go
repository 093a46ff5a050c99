package gifting

// PageKind says which of a recipient's two pages a page id names.
type PageKind int

// The recipient's pages.
const (
	LandingPage PageKind = iota + 1
	ClaimPage
)

// PageIDLength is the length of a landing or claim page id: 26 characters
// of lower-case base32 (130 bits).
const PageIDLength = 26

// ValidPageID reports whether id is well-formed as a page id, so a
// malformed one is refused without a read.
func ValidPageID(id string) bool {
	if len(id) != PageIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// RecipientPage is what a recipient's page is made of: the recipient, its
// campaign (IsDeleted set when the campaign was deleted), who sends the
// gift and the campaign's gifts that still exist, in the campaign's order.
type RecipientPage struct {
	Kind      PageKind
	Recipient Recipient
	Campaign  Campaign
	// Sender is the organization's display name (its name when it has
	// none).
	Sender string
	Gifts  []Gift
}

// Gone reports whether the page's campaign is over for this recipient: a
// deleted campaign, or a completed one whose recipient had not claimed the
// gift. A recipient who claimed still follows the gift's journey.
func (p RecipientPage) Gone() bool {
	return p.Campaign.IsDeleted || (p.Campaign.Status == CampaignCompleted && !p.Recipient.Claimed())
}

// InStock returns the page's gifts with at least one unit available.
func (p RecipientPage) InStock() []Gift {
	var out []Gift
	for _, g := range p.Gifts {
		if g.InStock() {
			out = append(out, g)
		}
	}
	return out
}
