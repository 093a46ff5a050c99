package gifting

import (
	"slices"
	"time"
)

// GiftPatch is a partial update of a tenant's own gift: nil fields are left
// as they are; a slice that is sent replaces the stored one.
type GiftPatch struct {
	Name             *string     `json:"name"`
	Price            *float64    `json:"price"`
	Currency         *string     `json:"currency"`
	Inventory        *Inventory  `json:"inventory"`
	Status           *GiftStatus `json:"status"`
	ShortDescription *string     `json:"shortDescription"`
	Description      *string     `json:"description"`
	ImageURLs        []string    `json:"imageUrls"`
	Dimensions       *Dimensions `json:"dimensions"`
	Weight           *Weight     `json:"weight"`
	CollectionIDs    []string    `json:"collectionIds"`
}

// Apply validates the patched gift exactly as a new gift is validated (the
// price within CreditsForPrice's bounds) and, when it is valid, applies it
// to g and moves g's updatedAt to now. It returns VALIDATION_FAILED and
// leaves g unchanged otherwise.
func (p GiftPatch) Apply(g *Gift, now time.Time) error {
	n := *g
	set(&n.Name, p.Name)
	set(&n.Price, p.Price)
	set(&n.Currency, p.Currency)
	set(&n.Inventory, p.Inventory)
	set(&n.Status, p.Status)
	set(&n.ShortDescription, p.ShortDescription)
	set(&n.Description, p.Description)
	if p.ImageURLs != nil {
		n.ImageURLs = slices.Clone(p.ImageURLs)
	}
	if p.Dimensions != nil {
		n.Dimensions = p.Dimensions
	}
	if p.Weight != nil {
		n.Weight = p.Weight
	}
	if p.CollectionIDs != nil {
		n.CollectionIDs = slices.Clone(p.CollectionIDs)
	}
	if err := n.Validate(); err != nil {
		return err
	}
	n.UpdatedAt = now
	*g = n
	return nil
}

// TemplatePatch is a partial update of a tenant's own template: nil fields
// are left as they are; tags, when sent, replace the stored tags, and
// templateData, when sent, replaces the stored one whole.
type TemplatePatch struct {
	TemplateName     *string       `json:"templateName"`
	TemplateCategory *string       `json:"templateCategory"`
	Tags             []string      `json:"tags"`
	SuccessRate      *float64      `json:"successRate"`
	TemplateData     *TemplateData `json:"templateData"`
	Description      *string       `json:"description"`
	ImageURL         *string       `json:"imageUrl"`
}

// Apply validates the patched template as a new template is validated and,
// when it is valid, applies it to t and moves t's updatedAt to now. It
// returns VALIDATION_FAILED and leaves t unchanged otherwise.
func (p TemplatePatch) Apply(t *Template, now time.Time) error {
	n := *t
	set(&n.TemplateName, p.TemplateName)
	set(&n.TemplateCategory, p.TemplateCategory)
	if p.Tags != nil {
		n.Tags = slices.Clone(p.Tags)
	}
	set(&n.SuccessRate, p.SuccessRate)
	set(&n.TemplateData, p.TemplateData)
	set(&n.Description, p.Description)
	set(&n.ImageURL, p.ImageURL)
	if err := n.Validate(); err != nil {
		return err
	}
	n.UpdatedAt = now
	*t = n
	return nil
}

// ContactListPatch is a partial update of a contact list: its name and
// description.
type ContactListPatch struct {
	Name        *string `json:"name"`
	Description *string `json:"description"`
}

// Apply validates the patched list as a new list is validated
// (ValidateContactList) and, when it is valid, applies it to l and moves
// l's updatedAt to now. It returns VALIDATION_FAILED and leaves l unchanged
// otherwise.
func (p ContactListPatch) Apply(l *ContactList, now time.Time) error {
	name, desc := l.Name, l.Description
	set(&name, p.Name)
	set(&desc, p.Description)
	if err := ValidateContactList(&name, &desc); err != nil {
		return err
	}
	l.Name, l.Description, l.UpdatedAt = name, desc, now
	return nil
}

// set copies *v into *dst when v is not nil.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// TemplateFilter selects templates of GET /templates.
type TemplateFilter struct {
	// Search keeps templates whose name contains it (case-insensitive).
	Search string
	// Category keeps templates of this templateCategory.
	Category string
	// IsDelightloop, when set, keeps only the service catalog's (true) or
	// only the organization's own (false) templates.
	IsDelightloop *bool
	// SortBy is one of TemplateSorts; Order its direction.
	SortBy string
	Order  SortOrder
}

// TemplateSorts are the sortBy values of GET /templates.
var TemplateSorts = []string{"createdAt", "updatedAt", "templateName", "successRate"}

// JobContactListDelete is the job kind that removes a deleted contact
// list's memberships, a slice at a time.
const JobContactListDelete = "contactlist.delete"

// Ref names a resource a campaign may refer to.
type Ref struct {
	Kind string // "template", "gift" or "contact list", as error messages name it
	ID   string
}

// Kinds of Ref.
const (
	RefTemplate    = "template"
	RefGift        = "gift"
	RefContactList = "contact list"
)
