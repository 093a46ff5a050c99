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
