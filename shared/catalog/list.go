package catalog

import (
	"cmp"
	"slices"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// GiftFilter selects gifts of GET /gifts. Empty fields do not filter.
type GiftFilter struct {
	// Search keeps gifts whose name contains it (case-insensitive).
	Search       string
	CollectionID string
	// IsDelightloop, when set, keeps only the service catalog's (true) or
	// only the organization's own (false) gifts.
	IsDelightloop *bool
	Status        GiftStatus
}

// TemplateFilter selects templates of GET /templates.
type TemplateFilter struct {
	// Search keeps templates whose name contains it (case-insensitive).
	Search string
	// Category keeps templates of this templateCategory
	// (case-insensitive).
	Category string
	// IsDelightloop, when set, keeps only the service catalog's (true) or
	// only the organization's own (false) templates.
	IsDelightloop *bool
	// SortBy is one of TemplateSorts; Order its direction.
	SortBy string
	Order  gifting.SortOrder
}

// TemplateSorts are the sortBy values of GET /templates, default first.
var TemplateSorts = []string{"createdAt", "updatedAt", "templateName", "successRate"}

// Owners are the organizations whose gifts or templates a list of orgID's
// reads, in the order it shows them: orgID's own (newest first), then the
// service catalog's; only the catalog's when isDelightloop is true, only
// orgID's own when false. Catalogs are small by nature (tens to a few
// thousand items), so a list reads each owner's whole and filters here.
func Owners(orgID string, isDelightloop *bool) []string {
	var owners []string
	if isDelightloop == nil || !*isDelightloop {
		owners = append(owners, orgID)
	}
	if isDelightloop == nil || *isDelightloop {
		owners = append(owners, gifting.CatalogOrgID)
	}
	return owners
}

// SelectGifts returns the page of the gifts of all (in the order Owners
// reads them) that f keeps, and how many it keeps.
func SelectGifts(all []Gift, f GiftFilter, page gifting.PageRequest) ([]Gift, int) {
	search := strings.ToLower(strings.TrimSpace(f.Search))
	var kept []Gift
	for _, g := range all {
		if search != "" && !strings.Contains(strings.ToLower(g.Name), search) {
			continue
		}
		if f.Status != "" && g.Status != f.Status {
			continue
		}
		if f.CollectionID != "" && !slices.Contains(g.CollectionIDs, f.CollectionID) {
			continue
		}
		kept = append(kept, g)
	}
	lo, hi := page.Window(len(kept))
	return kept[lo:hi], len(kept)
}

// SelectTemplates returns the page of the templates of all that f keeps,
// sorted by f.SortBy (createdAt by default; ties by id) in f.Order, and
// how many it keeps.
func SelectTemplates(all []Template, f TemplateFilter, page gifting.PageRequest) ([]Template, int) {
	search := strings.ToLower(strings.TrimSpace(f.Search))
	var kept []Template
	for _, t := range all {
		if search != "" && !strings.Contains(strings.ToLower(t.TemplateName), search) {
			continue
		}
		if f.Category != "" && !strings.EqualFold(t.TemplateCategory, f.Category) {
			continue
		}
		kept = append(kept, t)
	}
	slices.SortStableFunc(kept, func(a, b Template) int {
		var c int
		switch f.SortBy {
		case "templateName":
			c = gifting.CompareText(a.TemplateName, b.TemplateName)
		case "updatedAt":
			c = a.UpdatedAt.Compare(b.UpdatedAt)
		case "successRate":
			c = cmp.Compare(a.SuccessRate, b.SuccessRate)
		default:
			c = a.CreatedAt.Compare(b.CreatedAt)
		}
		return gifting.CompareBy(f.Order, c, a.TemplateID, b.TemplateID)
	})
	lo, hi := page.Window(len(kept))
	return kept[lo:hi], len(kept)
}
