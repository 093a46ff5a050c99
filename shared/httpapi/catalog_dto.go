package httpapi

import (
	"encoding/json"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

// The catalog's shapes on the wire (the OpenAPI schemas Gift, Template and
// their inputs), converted to and from the slice's types.

// giftDTO is a gift as the API answers it.
type giftDTO struct {
	GiftID         string       `json:"giftId"`
	OrganizationID string       `json:"organizationId"`
	Name           string       `json:"name"`
	Type           string       `json:"type"`
	Price          float64      `json:"price"`
	Currency       string       `json:"currency"`
	Inventory      inventoryDTO `json:"inventory"`
	// Variants is always a list ([] for a gift without variants).
	Variants          []variantDTO   `json:"variants"`
	LowStockThreshold *int           `json:"lowStockThreshold,omitempty"`
	Status            string         `json:"status"`
	IsDelightloop     bool           `json:"isDelightloop"`
	CreatedAt         time.Time      `json:"createdAt"`
	UpdatedAt         time.Time      `json:"updatedAt"`
	ShortDescription  string         `json:"shortDescription,omitempty"`
	Description       string         `json:"description,omitempty"`
	ImageURLs         []string       `json:"imageUrls,omitempty"`
	Dimensions        *dimensionsDTO `json:"dimensions,omitempty"`
	Weight            *weightDTO     `json:"weight,omitempty"`
	CollectionIDs     []string       `json:"collectionIds,omitempty"`
}

type inventoryDTO struct {
	Total     int `json:"total"`
	Available int `json:"available"`
	Reserved  int `json:"reserved"`
}

// variantDTO is a variant of a gift; its variantId is the service's,
// left out of a new variant.
type variantDTO struct {
	VariantID string       `json:"variantId,omitempty"`
	Name      string       `json:"name"`
	Inventory inventoryDTO `json:"inventory"`
}

func toVariantDTOs(vs []catalog.Variant) []variantDTO {
	out := make([]variantDTO, 0, len(vs))
	for _, v := range vs {
		out = append(out, variantDTO{VariantID: v.VariantID, Name: v.Name, Inventory: inventoryDTO(v.Inventory)})
	}
	return out
}

// variants is in as the slice's variants, nil kept as nil (not sent).
func variants(in []variantDTO) []catalog.Variant {
	if in == nil {
		return nil
	}
	out := make([]catalog.Variant, 0, len(in))
	for _, v := range in {
		out = append(out, catalog.Variant{VariantID: v.VariantID, Name: v.Name, Inventory: catalog.Inventory(v.Inventory)})
	}
	return out
}

// nullableInt is a PATCH field that may be sent as a number, sent as
// null (cleared), or left out.
type nullableInt struct {
	Set   bool
	Value *int
}

// UnmarshalJSON records that the field was sent, and its value (nil
// for null).
func (n *nullableInt) UnmarshalJSON(b []byte) error {
	n.Set = true
	return json.Unmarshal(b, &n.Value)
}

type dimensionsDTO struct {
	Height float64 `json:"height"`
	Width  float64 `json:"width"`
	Length float64 `json:"length"`
	Unit   string  `json:"unit"`
}

type weightDTO struct {
	Weight float64 `json:"weight"`
	Unit   string  `json:"unit"`
}

func toGiftDTO(g catalog.Gift) giftDTO {
	return giftDTO{
		GiftID: g.GiftID, OrganizationID: g.OrganizationID, Name: g.Name, Type: string(g.Type), Price: g.Price, Currency: g.Currency,
		Inventory: inventoryDTO(g.Inventory), Variants: toVariantDTOs(g.Variants), LowStockThreshold: g.LowStockThreshold,
		Status: string(g.Status), IsDelightloop: g.IsDelightloop,
		CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt, ShortDescription: g.ShortDescription, Description: g.Description,
		ImageURLs: g.ImageURLs, Dimensions: (*dimensionsDTO)(g.Dimensions), Weight: (*weightDTO)(g.Weight),
		CollectionIDs: g.CollectionIDs,
	}
}

// giftInput is the body of POST /gifts: the Gift fields a tenant sets.
type giftInput struct {
	Name              string         `json:"name"`
	Type              string         `json:"type"`
	Price             *float64       `json:"price"`
	Currency          string         `json:"currency"`
	Inventory         *inventoryDTO  `json:"inventory"`
	Variants          []variantDTO   `json:"variants"`
	LowStockThreshold *int           `json:"lowStockThreshold"`
	Status            string         `json:"status"`
	ShortDescription  string         `json:"shortDescription"`
	Description       string         `json:"description"`
	ImageURLs         []string       `json:"imageUrls"`
	Dimensions        *dimensionsDTO `json:"dimensions"`
	Weight            *weightDTO     `json:"weight"`
	CollectionIDs     []string       `json:"collectionIds"`
}

// gift is in as a new gift; price must have been sent, and inventory
// unless variants were (their sum is the gift's) or the gift is digital
// (its codes are its stock).
func (in giftInput) gift() catalog.Gift {
	var inv catalog.Inventory
	if in.Inventory != nil {
		inv = catalog.Inventory(*in.Inventory)
	}
	return catalog.Gift{
		Name: in.Name, Type: catalog.GiftType(in.Type), Price: *in.Price, Currency: in.Currency, Inventory: inv,
		Variants: variants(in.Variants), LowStockThreshold: in.LowStockThreshold,
		Status: catalog.GiftStatus(in.Status), ShortDescription: in.ShortDescription, Description: in.Description,
		ImageURLs: in.ImageURLs, Dimensions: (*catalog.Dimensions)(in.Dimensions), Weight: (*catalog.Weight)(in.Weight),
		CollectionIDs: in.CollectionIDs,
	}
}

// giftPatch is the body of PATCH /gifts/{giftId}: nil fields are left as
// they are; a list that is sent replaces the stored one.
type giftPatch struct {
	Name              *string        `json:"name"`
	Type              *string        `json:"type"`
	Price             *float64       `json:"price"`
	Currency          *string        `json:"currency"`
	Inventory         *inventoryDTO  `json:"inventory"`
	Variants          []variantDTO   `json:"variants"`
	LowStockThreshold nullableInt    `json:"lowStockThreshold"`
	Status            *string        `json:"status"`
	ShortDescription  *string        `json:"shortDescription"`
	Description       *string        `json:"description"`
	ImageURLs         []string       `json:"imageUrls"`
	Dimensions        *dimensionsDTO `json:"dimensions"`
	Weight            *weightDTO     `json:"weight"`
	CollectionIDs     []string       `json:"collectionIds"`
}

func (in giftPatch) patch() catalog.GiftPatch {
	p := catalog.GiftPatch{
		Name: in.Name, Price: in.Price, Currency: in.Currency, Inventory: (*catalog.Inventory)(in.Inventory),
		ShortDescription: in.ShortDescription, Description: in.Description, ImageURLs: in.ImageURLs,
		Dimensions: (*catalog.Dimensions)(in.Dimensions), Weight: (*catalog.Weight)(in.Weight), CollectionIDs: in.CollectionIDs,
		Variants: variants(in.Variants), LowStockThreshold: in.LowStockThreshold.Value,
		ClearLowStock: in.LowStockThreshold.Set && in.LowStockThreshold.Value == nil,
	}
	if in.Status != nil {
		status := catalog.GiftStatus(*in.Status)
		p.Status = &status
	}
	if in.Type != nil {
		t := catalog.GiftType(*in.Type)
		p.Type = &t
	}
	return p
}

// templateDTO is a template as the API answers it.
type templateDTO struct {
	TemplateID       string          `json:"templateId"`
	OrganizationID   string          `json:"organizationId"`
	TemplateName     string          `json:"templateName"`
	TemplateCategory string          `json:"templateCategory"`
	IsDelightloop    bool            `json:"isDelightloop"`
	Tags             []string        `json:"tags"`
	SuccessRate      float64         `json:"successRate"`
	TemplateData     templateDataDTO `json:"templateData"`
	CreatedAt        time.Time       `json:"createdAt"`
	UpdatedAt        time.Time       `json:"updatedAt"`
	Description      string          `json:"description"`
	ImageURL         string          `json:"imageUrl"`
}

// templateDataDTO holds the goal of a template and the emails it sends,
// by kind.
type templateDataDTO struct {
	Goal    goalDTO             `json:"goal"`
	Emails  map[string]emailDTO `json:"emails,omitempty"`
	Meeting *gifting.Meeting    `json:"meeting,omitempty"`
}

type goalDTO struct {
	GoalID      string `json:"goalId"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Logo        string `json:"logo"`
	LogoColor   string `json:"logoColor"`
}

type emailDTO struct {
	Subject    string `json:"subject"`
	HTML       string `json:"html"`
	DelayHours int    `json:"delayHours"`
}

func toTemplateDTO(t catalog.Template) templateDTO {
	return templateDTO{
		TemplateID: t.TemplateID, OrganizationID: t.OrganizationID, TemplateName: t.TemplateName,
		TemplateCategory: t.TemplateCategory, IsDelightloop: t.IsDelightloop, Tags: t.Tags, SuccessRate: t.SuccessRate,
		TemplateData: templateDataDTO{Goal: goalDTO(t.TemplateData.Goal),
			Emails:  mapValues(t.TemplateData.Emails, func(e catalog.Email) emailDTO { return emailDTO(e) }),
			Meeting: t.TemplateData.Meeting},
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Description: t.Description, ImageURL: t.ImageURL,
	}
}

func (d templateDataDTO) data() catalog.TemplateData {
	return catalog.TemplateData{Goal: catalog.Goal(d.Goal),
		Emails:  mapValues(d.Emails, func(e emailDTO) catalog.Email { return catalog.Email(e) }),
		Meeting: d.Meeting}
}

// templateInput is the body of POST /templates.
type templateInput struct {
	TemplateName     string          `json:"templateName"`
	TemplateCategory string          `json:"templateCategory"`
	Tags             []string        `json:"tags"`
	SuccessRate      float64         `json:"successRate"`
	TemplateData     templateDataDTO `json:"templateData"`
	Description      string          `json:"description"`
	ImageURL         string          `json:"imageUrl"`
}

func (in templateInput) template() catalog.Template {
	return catalog.Template{
		TemplateName: in.TemplateName, TemplateCategory: in.TemplateCategory, Tags: in.Tags, SuccessRate: in.SuccessRate,
		TemplateData: in.TemplateData.data(), Description: in.Description, ImageURL: in.ImageURL,
	}
}

// templatePatch is the body of PATCH /templates/{templateId}: nil fields
// are left as they are; tags, when sent, replace the stored tags, and
// templateData, when sent, replaces the stored one whole.
type templatePatch struct {
	TemplateName     *string          `json:"templateName"`
	TemplateCategory *string          `json:"templateCategory"`
	Tags             []string         `json:"tags"`
	SuccessRate      *float64         `json:"successRate"`
	TemplateData     *templateDataDTO `json:"templateData"`
	Description      *string          `json:"description"`
	ImageURL         *string          `json:"imageUrl"`
}

func (in templatePatch) patch() catalog.TemplatePatch {
	p := catalog.TemplatePatch{
		TemplateName: in.TemplateName, TemplateCategory: in.TemplateCategory, Tags: in.Tags,
		SuccessRate: in.SuccessRate, Description: in.Description, ImageURL: in.ImageURL,
	}
	if in.TemplateData != nil {
		data := in.TemplateData.data()
		p.TemplateData = &data
	}
	return p
}

// mapValues maps the values of in through f, keeping nil as nil.
func mapValues[K comparable, A, B any](in map[K]A, f func(A) B) map[K]B {
	if in == nil {
		return nil
	}
	out := make(map[K]B, len(in))
	for k, v := range in {
		out[k] = f(v)
	}
	return out
}
