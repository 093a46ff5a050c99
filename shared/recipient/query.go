package recipient

import "github.com/giftcampaign/service/shared/gifting"

// Query selects a page of a campaign's recipients.
type Query struct {
	// Statuses keeps recipients in any of these states; empty keeps all.
	Statuses []gifting.RecipientStatus
	// Search keeps recipients whose "first last" name contains it
	// (case-insensitively).
	Search string
	// UserID keeps recipients assigned to that user.
	UserID string
	// Feedback keeps recipients with (true) or without (false) feedback.
	Feedback *bool
	// SortBy is one of Sorts; "" means createdAt. Status sorts in the
	// order of a recipient's journey (gifting.RecipientStatuses).
	SortBy string
	// Order is asc or desc; "" means desc.
	Order gifting.SortOrder
	// GroupByStatus sorts by status (journey order) first, so a page holds
	// whole runs of each status.
	GroupByStatus bool
	Page          gifting.PageRequest
	// WithOrg also reads the organization's profile.
	WithOrg bool
}

// ListPage is a page of recipients with the campaign they belong to.
type ListPage struct {
	Recipients []Recipient
	// Total is the number of recipients the query matches.
	Total    int
	Campaign gifting.Campaign
	// Org is set when the query asked WithOrg.
	Org gifting.Organization
}

// Sorts are the sortBy values of the recipient lists (docs/api.md).
var Sorts = []string{"createdAt", "updatedAt", "firstName", "lastName", "status", "email", "company"}
