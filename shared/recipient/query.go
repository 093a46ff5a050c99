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

// Keyed reports whether q's order follows an index key, so a page can
// start right after a position (a cursor): creation order, at most
// filtered by status or feedback, or grouped by status; status order with
// those filters; last name with no filter. A search, a user filter and
// the other sorts are kept in order in memory: no cursor.
func (q Query) Keyed() bool {
	if q.Search != "" || q.UserID != "" {
		return false
	}
	switch q.SortBy {
	case "", "createdAt", "status":
		return true
	case "lastName":
		return len(q.Statuses) == 0 && q.Feedback == nil && !q.GroupByStatus
	}
	return false
}
