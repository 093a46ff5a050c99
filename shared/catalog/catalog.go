// Package catalog is the catalog slice: the gifts and email templates an
// organization sends, its own and the service catalog's (isDelightloop,
// owned by gifting.CatalogOrgID and visible to every organization).
//
// It holds the slice's domain types (no JSON or attribute tags: the API's
// shape is shared/httpapi's, the stored item shared/dynamo's), its pure
// decisions (CheckGift, CheckTemplate, the patches, SelectGifts,
// SelectTemplates, SeedGift: state in, the gift or template to write or the
// domain error out), the port it needs of storage (Store) and its
// application layer (App: load → decide → commit, deciding again when
// another write moved what it decided from). Storage implements Store and
// imports this package for its types and outcomes, never App
// (TestStorageDecidesNothing keeps it so).
//
// The areas not yet moved into slices (campaign pricing, add-recipient's
// kit, the launch, the claim, the recipient pages) still read gifts and
// templates in gifting's shapes through storage's own reads
// (dynamo.Store.Gift, Gifts, Template); they move to this slice's port
// when those areas become slices.
package catalog

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// GiftStatus is the state of a gift (docs/api.md, the original interface).
type GiftStatus string

// Gift states.
const (
	GiftAvailable GiftStatus = "available"
	GiftPending   GiftStatus = "pending"
	GiftInTransit GiftStatus = "in_transit"
	GiftDelivered GiftStatus = "delivered"
)

// GiftStatuses lists every gift state, in the original interface's order.
var GiftStatuses = []GiftStatus{GiftAvailable, GiftPending, GiftInTransit, GiftDelivered}

// Valid reports whether s is a known gift state.
func (s GiftStatus) Valid() bool {
	for _, v := range GiftStatuses {
		if s == v {
			return true
		}
	}
	return false
}

// GiftType is what a recipient receives: a parcel (physical, shipped to
// the address the recipient confirms) or a code (digital: a gift card,
// voucher or subscription code from the gift's pool, revealed to the
// recipient at the claim, with no address asked).
type GiftType string

// Gift types; a gift without one is physical (every gift before digital
// gifts existed).
const (
	GiftPhysical GiftType = "physical"
	GiftDigital  GiftType = "digital"
)

// GiftTypes lists the gift types.
var GiftTypes = []GiftType{GiftPhysical, GiftDigital}

// Gift is a gift of the catalog.
type Gift struct {
	GiftID         string
	OrganizationID string
	Name           string
	// Type is physical or digital (CheckGift fills physical in). It is
	// set when the gift is created and never changes: a digital gift's
	// stock is its codes (shared/giftcodes), a physical one's its counts.
	Type GiftType
	// Price is what the gift costs, in the currency; a campaign of it
	// charges it in whole credits (gifting.CreditsForPrice).
	Price     float64
	Currency  string
	Inventory Inventory
	// Variants are the gift's variants (sizes, colours), each with its
	// own stock; with variants, Inventory is their sum (CheckGift).
	Variants []Variant
	// LowStockThreshold, when not nil, is where the organization wants a
	// gift.low_stock message: when available falls to it (per variant
	// for a gift with variants).
	LowStockThreshold *int
	Status            GiftStatus
	IsDelightloop     bool
	CreatedAt         time.Time
	UpdatedAt         time.Time
	ShortDescription  string
	Description       string
	ImageURLs         []string
	Dimensions        *Dimensions
	Weight            *Weight
	CollectionIDs     []string
}

// Inventory counts a gift's stock: claims move units from available to
// reserved.
type Inventory struct {
	Total     int
	Available int
	Reserved  int
}

// Dimensions of a gift.
type Dimensions struct {
	Height float64
	Width  float64
	Length float64
	Unit   string
}

// Weight of a gift.
type Weight struct {
	Weight float64
	Unit   string
}

// Units accepted for gift dimensions and weight. The original interface
// shows inch and pound; the metric units are the ones a catalog also
// needs.
var (
	DimensionUnits = []string{"inch", "cm"}
	WeightUnits    = []string{"pound", "ounce", "kg", "g"}
)

// Template is an email template.
type Template struct {
	TemplateID       string
	OrganizationID   string
	TemplateName     string
	TemplateCategory string
	IsDelightloop    bool
	Tags             []string
	SuccessRate      float64
	TemplateData     TemplateData
	CreatedAt        time.Time
	UpdatedAt        time.Time
	Description      string
	ImageURL         string
}

// TemplateData holds the goal of a template and the emails it sends, by
// kind (gifting.EmailKinds). The original interface shows only the goal;
// the emails are this service's decision (docs/resources.md, Templates).
type TemplateData struct {
	Goal   Goal
	Emails map[string]Email
	// Meeting is the meeting link of the campaigns made from the template
	// that carry none of their own (gifting.Meeting).
	Meeting *gifting.Meeting
}

// Goal is what a template is for.
type Goal struct {
	GoalID      string
	Name        string
	Description string
	Logo        string
	LogoColor   string
}

// Email is the subject and body of one scheduled email, and when it goes
// out relative to the recipient being added.
type Email struct {
	Subject string
	HTML    string
	// DelayHours is when the email is scheduled, in hours after the
	// recipient is added (0 = immediately).
	DelayHours int
}
