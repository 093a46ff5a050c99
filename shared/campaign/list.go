package campaign

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Filter selects campaigns. Empty fields do not filter.
type Filter struct {
	Status Status
	// Search keeps campaigns whose name and description hold every word
	// of it, case-insensitively (gifting.MatchesSearch).
	Search string
	// CreatedFrom and CreatedTo bound createdAt, both inclusive.
	CreatedFrom, CreatedTo *time.Time
	// CreatedBy keeps the campaigns of one user (myCampaigns).
	CreatedBy string
}

// Empty reports whether f keeps every campaign.
func (f Filter) Empty() bool { return f == Filter{} }

// Keeps reports whether f keeps c (a deleted campaign never).
func (f Filter) Keeps(c Campaign) bool {
	return !c.IsDeleted &&
		(f.Status == "" || c.Status == f.Status) &&
		(f.CreatedBy == "" || c.CreatedBy == f.CreatedBy) &&
		(f.CreatedFrom == nil || !c.CreatedAt.Before(*f.CreatedFrom)) &&
		(f.CreatedTo == nil || !c.CreatedAt.After(*f.CreatedTo)) &&
		gifting.MatchesSearch(c.Name+"\n"+c.Description, f.Search)
}

// Sort fields of campaigns.
const (
	SortCreatedAt = "createdAt"
	SortUpdatedAt = "updatedAt"
	SortName      = "name"
	SortStatus    = "status"
)

// Sorts lists the sort fields of the campaign list, default first.
var Sorts = []string{SortCreatedAt, SortUpdatedAt, SortName, SortStatus}

// RecipientListPage is a page of a campaign's recipients with the campaign
// they belong to.
type RecipientListPage struct {
	Recipients []gifting.Recipient
	// Total is the number of recipients the query matches.
	Total    int
	Campaign Campaign
	// Org is set when the query asked WithOrg.
	Org gifting.Organization
}

// RecipientPage is what a recipient's page is made of: the recipient, its
// campaign (IsDeleted set when the campaign was deleted), who sends the
// gift and the campaign's gifts that still exist, in the campaign's order.
type RecipientPage struct {
	Kind      gifting.PageKind
	Recipient gifting.Recipient
	Campaign  Campaign
	// Sender is the organization's display name (its name when it has
	// none).
	Sender string
	Gifts  []gifting.Gift
}

// Gone reports whether the page's campaign is over for this recipient: a
// deleted campaign, or a completed one whose recipient had not claimed the
// gift. A recipient who claimed still follows the gift's journey.
func (p RecipientPage) Gone() bool {
	return p.Campaign.IsDeleted || (p.Campaign.Status == Completed && !p.Recipient.Claimed())
}

// InStock returns the page's gifts with at least one unit available.
func (p RecipientPage) InStock() []gifting.Gift {
	var out []gifting.Gift
	for _, g := range p.Gifts {
		if g.InStock() {
			out = append(out, g)
		}
	}
	return out
}
