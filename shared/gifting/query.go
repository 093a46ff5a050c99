package gifting

import "time"

// GiftFilter selects gifts. Empty fields do not filter.
type GiftFilter struct {
	Search       string
	CollectionID string
	// IsDelightloop, when set, keeps only the catalog's (true) or only the
	// organization's own (false) gifts.
	IsDelightloop *bool
	Status        GiftStatus
}

// CampaignFilter selects campaigns. Empty fields do not filter.
type CampaignFilter struct {
	Status CampaignStatus
	// Search keeps campaigns whose name and description hold every word
	// of it, case-insensitively (MatchesSearch).
	Search string
	// CreatedFrom and CreatedTo bound createdAt, both inclusive.
	CreatedFrom, CreatedTo *time.Time
	// CreatedBy keeps the campaigns of one user (myCampaigns).
	CreatedBy string
}

// Empty reports whether f keeps every campaign.
func (f CampaignFilter) Empty() bool { return f == CampaignFilter{} }

// CampaignSorts lists the sort fields of the campaign list, default first.
var CampaignSorts = []string{CampaignSortCreatedAt, CampaignSortUpdatedAt, CampaignSortName, CampaignSortStatus}

// RecipientQuery selects a page of a campaign's recipients.
type RecipientQuery struct {
	// Statuses keeps recipients in any of these states; empty keeps all.
	Statuses []RecipientStatus
	// Search keeps recipients whose "first last" name contains it
	// (case-insensitively).
	Search string
	// UserID keeps recipients assigned to that user.
	UserID string
	// Feedback keeps recipients with (true) or without (false) feedback.
	Feedback *bool
	// SortBy is one of RecipientSorts; "" means createdAt. Status sorts in
	// the order of a recipient's journey (RecipientStatuses).
	SortBy string
	// Order is asc or desc; "" means desc.
	Order SortOrder
	// GroupByStatus sorts by status (journey order) first, so a page holds
	// whole runs of each status.
	GroupByStatus bool
	Page          PageRequest
	// WithOrg also reads the organization's profile.
	WithOrg bool
}

// RecipientListPage is a page of recipients with the campaign they belong to.
type RecipientListPage struct {
	Recipients []Recipient
	// Total is the number of recipients the query matches.
	Total    int
	Campaign Campaign
	// Org is set when the query asked WithOrg.
	Org Organization
}

// RecipientSorts are the sortBy values of the recipient lists (docs/api.md).
var RecipientSorts = []string{"createdAt", "updatedAt", "firstName", "lastName", "status", "email", "company"}

// MemberQuery selects a page of an audience's members.
type MemberQuery struct {
	// Search keeps the members whose names, email, company or job title
	// contain every word of it, case-insensitively.
	Search string
	// SortBy is one of AudienceMemberSorts; ties are broken by contactId.
	SortBy string
	Order  SortOrder
	Page   PageRequest
}

// Sort fields of an audience's contacts.
var AudienceMemberSorts = []string{"createdAt", "updatedAt", "contactId"}

// Sort fields of campaigns.
const (
	CampaignSortCreatedAt = "createdAt"
	CampaignSortUpdatedAt = "updatedAt"
	CampaignSortName      = "name"
	CampaignSortStatus    = "status"
)
