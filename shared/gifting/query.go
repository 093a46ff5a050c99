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

// Sort fields of contact lists.
var ContactListSorts = []string{"createdAt", "updatedAt", "name", "contactCount"}

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
