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

// RecipientSorts are the sortBy values of the recipient lists (docs/api.md).
var RecipientSorts = []string{"createdAt", "updatedAt", "firstName", "lastName", "status", "email", "company"}
