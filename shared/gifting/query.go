package gifting

// GiftFilter selects gifts. Empty fields do not filter.
type GiftFilter struct {
	Search       string
	CollectionID string
	// IsDelightloop, when set, keeps only the catalog's (true) or only the
	// organization's own (false) gifts.
	IsDelightloop *bool
	Status        GiftStatus
}

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
