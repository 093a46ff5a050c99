package gifting

import "time"

// The shapes in which the areas not yet moved into slices read gifts and
// templates, and keep them in their own items: campaign pricing
// (CatalogFloor), add-recipient's kit (a recipient's gift and emails),
// the launch, the claim and the recipient pages. Their JSON names are the
// attribute names on disk. The catalog's own types, rules and use cases
// are shared/catalog's; these go when those areas become slices and read
// through its port.

// GiftStatus is the state of a gift (catalog.GiftStatus).
type GiftStatus string

// GiftAvailable is the state of a gift that can be chosen.
const GiftAvailable GiftStatus = "available"

// Gift is a gift of the catalog as the areas not yet moved read it.
type Gift struct {
	GiftID         string `json:"giftId"`
	OrganizationID string `json:"organizationId"`
	Name           string `json:"name"`
	// Type is "digital" for a gift whose stock is codes (catalog.GiftType);
	// empty or "physical" for a parcel.
	Type      string    `json:"type,omitempty"`
	Price     float64   `json:"price"`
	Currency  string    `json:"currency"`
	Inventory Inventory `json:"inventory"`
	// Variants (ids and names, in order) and their counts by id: with
	// variants, Inventory is their sum (catalog.CheckGift).
	Variants          []GiftVariant        `json:"variants,omitempty"`
	VariantStock      map[string]Inventory `json:"vinv,omitempty"`
	LowStockThreshold *int                 `json:"lowStockThreshold,omitempty"`
	Status            GiftStatus           `json:"status"`
	IsDelightloop     bool                 `json:"isDelightloop"`
	CreatedAt         time.Time            `json:"createdAt"`
	UpdatedAt         time.Time            `json:"updatedAt"`
	ShortDescription  string               `json:"shortDescription,omitempty"`
	Description       string               `json:"description,omitempty"`
	ImageURLs         []string             `json:"imageUrls,omitempty"`
	Dimensions        *Dimensions          `json:"dimensions,omitempty"`
	Weight            *Weight              `json:"weight,omitempty"`
	CollectionIDs     []string             `json:"collectionIds,omitempty"`
}

// Digital reports whether g's stock is codes rather than parcels.
func (g Gift) Digital() bool { return g.Type == "digital" }

// Inventory counts a gift's stock.
type Inventory struct {
	Total     int `json:"total"`
	Available int `json:"available"`
	Reserved  int `json:"reserved"`
}

// GiftVariant is a variant of a gift (a size, a colour).
type GiftVariant struct {
	VariantID string `json:"variantId"`
	Name      string `json:"name"`
}

// Variant returns g's variant id and its counts; ok is false when g has
// no such variant.
func (g Gift) Variant(id string) (v GiftVariant, inv Inventory, ok bool) {
	for _, v := range g.Variants {
		if v.VariantID == id {
			return v, g.VariantStock[id], true
		}
	}
	return GiftVariant{}, Inventory{}, false
}

// Dimensions of a gift.
type Dimensions struct {
	Height float64 `json:"height"`
	Width  float64 `json:"width"`
	Length float64 `json:"length"`
	Unit   string  `json:"unit"`
}

// Weight of a gift.
type Weight struct {
	Weight float64 `json:"weight"`
	Unit   string  `json:"unit"`
}

// Template is an email template as the areas not yet moved read it.
type Template struct {
	TemplateID       string       `json:"templateId"`
	OrganizationID   string       `json:"organizationId"`
	TemplateName     string       `json:"templateName"`
	TemplateCategory string       `json:"templateCategory"`
	IsDelightloop    bool         `json:"isDelightloop"`
	Tags             []string     `json:"tags"`
	SuccessRate      float64      `json:"successRate"`
	TemplateData     TemplateData `json:"templateData"`
	CreatedAt        time.Time    `json:"createdAt"`
	UpdatedAt        time.Time    `json:"updatedAt"`
	Description      string       `json:"description"`
	ImageURL         string       `json:"imageUrl"`
}

// TemplateData holds the goal of a template and the email it sends. The
// original interface shows only the goal; the emails are this service's
// decision (docs/resources.md, Templates).
type TemplateData struct {
	Goal   Goal                     `json:"goal"`
	Emails map[string]EmailTemplate `json:"emails,omitempty"`
	// Meeting is the meeting link of the campaigns made from the template
	// that carry none of their own.
	Meeting *Meeting `json:"meeting,omitempty"`
}

// Goal is what a template is for.
type Goal struct {
	GoalID      string `json:"goalId"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Logo        string `json:"logo"`
	LogoColor   string `json:"logoColor"`
}

// EmailTemplate is the subject and body of one scheduled email, and when it
// goes out relative to the recipient being added.
type EmailTemplate struct {
	Subject string `json:"subject"`
	HTML    string `json:"html"`
	// DelayHours is when the email is scheduled, in hours after the
	// recipient is added (0 = immediately).
	DelayHours int `json:"delayHours"`
}

// EmailKinds are the scheduled emails of a recipient, in send order.
// shipped tells the recipient its gift left the warehouse, with the
// carrier's tracking (issue 31); a template may word it, and the service
// has its own words when it does not.
var EmailKinds = []string{"addressConfirmation", "reminder1", "reminder2", "shipped", "postDelivery", "postAcknowledgement"}
