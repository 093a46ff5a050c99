package recipient

import "github.com/giftcampaign/service/shared/gifting"

// Query selects a page of a campaign's recipients (the campaign slice
// lists them with the campaign: campaign.App.Recipients).
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

// Sorts are the sortBy values of the recipient lists (docs/api.md).
var Sorts = []string{"createdAt", "updatedAt", "firstName", "lastName", "status", "email", "company"}
