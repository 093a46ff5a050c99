package campaign

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
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
// they belong to (App.Recipients).
type RecipientListPage struct {
	Recipients []recipient.Recipient
	// Total is the number of recipients the query matches.
	Total    int
	Campaign Campaign
	// Org is set when the query asked WithOrg.
	Org gifting.Organization
}

// RecipientRows is a page of a campaign's recipients read from a cursor
// (App.RecipientsAfter): each recipient beside the cursor that starts right
// after it (an export that ends its page early goes on from there), the
// cursor of the next page ("" when none follows), and the campaign.
type RecipientRows struct {
	Campaign   Campaign
	Recipients []recipient.Recipient
	Cursors    []string
	Next       string
}
