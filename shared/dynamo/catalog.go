package dynamo

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

// The catalog slice's storage: load (this file) and commit
// (catalog_edit.go); shared/catalog decides. The items keep the attribute
// names they had when the API's types were stored as they were
// (docs/data-model.md); the tags name attributes, as the store's marshal
// reads them.

// The store implements the catalog's port.
var _ catalog.Store = (*Store)(nil)

// catalogGift is a gift (GIFT#<id> under its owner: an organization, or
// gifting.CatalogOrgID for the service catalog).
type catalogGift struct {
	GiftID         string        `json:"giftId"`
	OrganizationID string        `json:"organizationId"`
	Name           string        `json:"name"`
	Type           string        `json:"type,omitempty"`
	Price          float64       `json:"price"`
	Currency       string        `json:"currency"`
	Inventory      inventoryItem `json:"inventory"`
	// Variants are the variants' ids and names, in the gift's order;
	// their counts are in VariantStock by id, where a claim's stock move
	// adds to them (orders_commit.go's stockUpdate) as it adds to the
	// gift's own inventory, their sum.
	Variants          []variantItem            `json:"variants,omitempty"`
	VariantStock      map[string]inventoryItem `json:"vinv,omitempty"`
	LowStockThreshold *int                     `json:"lowStockThreshold,omitempty"`
	Status            string                   `json:"status"`
	IsDelightloop     bool                     `json:"isDelightloop"`
	CreatedAt         time.Time                `json:"createdAt"`
	UpdatedAt         time.Time                `json:"updatedAt"`
	ShortDescription  string                   `json:"shortDescription,omitempty"`
	Description       string                   `json:"description,omitempty"`
	ImageURLs         []string                 `json:"imageUrls,omitempty"`
	Dimensions        *dimensionsItem          `json:"dimensions,omitempty"`
	Weight            *weightItem              `json:"weight,omitempty"`
	CollectionIDs     []string                 `json:"collectionIds,omitempty"`
}

// inventoryItem is a gift's stock; claims move its units (claim.go), so
// every write of a gift is conditioned on the counts it read.
type inventoryItem struct {
	Total     int `json:"total"`
	Available int `json:"available"`
	Reserved  int `json:"reserved"`
}

// variantItem is a variant of a gift as its item lists it.
type variantItem struct {
	VariantID string `json:"variantId"`
	Name      string `json:"name"`
}

type dimensionsItem struct {
	Height float64 `json:"height"`
	Width  float64 `json:"width"`
	Length float64 `json:"length"`
	Unit   string  `json:"unit"`
}

type weightItem struct {
	Weight float64 `json:"weight"`
	Unit   string  `json:"unit"`
}

func catalogGiftOf(g catalog.Gift) catalogGift {
	var vs []variantItem
	var stock map[string]inventoryItem
	for _, v := range g.Variants {
		if stock == nil {
			stock = map[string]inventoryItem{}
		}
		vs = append(vs, variantItem{VariantID: v.VariantID, Name: v.Name})
		stock[v.VariantID] = inventoryItem(v.Inventory)
	}
	return catalogGift{Variants: vs, VariantStock: stock, LowStockThreshold: g.LowStockThreshold,
		GiftID: g.GiftID, OrganizationID: g.OrganizationID, Name: g.Name, Type: string(g.Type), Price: g.Price, Currency: g.Currency,
		Inventory: inventoryItem(g.Inventory), Status: string(g.Status), IsDelightloop: g.IsDelightloop,
		CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt, ShortDescription: g.ShortDescription, Description: g.Description,
		ImageURLs: g.ImageURLs, Dimensions: (*dimensionsItem)(g.Dimensions), Weight: (*weightItem)(g.Weight),
		CollectionIDs: g.CollectionIDs,
	}
}

// giftType is the stored type; a gift stored before types existed is
// physical.
func (it catalogGift) giftType() catalog.GiftType {
	if it.Type == "" {
		return catalog.GiftPhysical
	}
	return catalog.GiftType(it.Type)
}

func (it catalogGift) gift() catalog.Gift {
	var vs []catalog.Variant
	for _, v := range it.Variants {
		vs = append(vs, catalog.Variant{VariantID: v.VariantID, Name: v.Name, Inventory: catalog.Inventory(it.VariantStock[v.VariantID])})
	}
	return catalog.Gift{Variants: vs, LowStockThreshold: it.LowStockThreshold,
		GiftID: it.GiftID, OrganizationID: it.OrganizationID, Name: it.Name, Type: it.giftType(), Price: it.Price, Currency: it.Currency,
		Inventory: catalog.Inventory(it.Inventory), Status: catalog.GiftStatus(it.Status), IsDelightloop: it.IsDelightloop,
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, ShortDescription: it.ShortDescription, Description: it.Description,
		ImageURLs: it.ImageURLs, Dimensions: (*catalog.Dimensions)(it.Dimensions), Weight: (*catalog.Weight)(it.Weight),
		CollectionIDs: it.CollectionIDs,
	}
}

// catalogTemplate is an email template (TEMPLATE#<id> under its owner), its
// emails included: add-recipient reads them with the template.
type catalogTemplate struct {
	TemplateID       string           `json:"templateId"`
	OrganizationID   string           `json:"organizationId"`
	TemplateName     string           `json:"templateName"`
	TemplateCategory string           `json:"templateCategory"`
	IsDelightloop    bool             `json:"isDelightloop"`
	Tags             []string         `json:"tags"`
	SuccessRate      float64          `json:"successRate"`
	TemplateData     templateDataItem `json:"templateData"`
	CreatedAt        time.Time        `json:"createdAt"`
	UpdatedAt        time.Time        `json:"updatedAt"`
	Description      string           `json:"description"`
	ImageURL         string           `json:"imageUrl"`
}

type templateDataItem struct {
	Goal    goalItem             `json:"goal"`
	Emails  map[string]emailItem `json:"emails,omitempty"`
	Meeting *gifting.Meeting     `json:"meeting,omitempty"`
}

type goalItem struct {
	GoalID      string `json:"goalId"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Logo        string `json:"logo"`
	LogoColor   string `json:"logoColor"`
}

type emailItem struct {
	Subject    string `json:"subject"`
	HTML       string `json:"html"`
	DelayHours int    `json:"delayHours"`
}

func catalogTemplateOf(t catalog.Template) catalogTemplate {
	return catalogTemplate{
		TemplateID: t.TemplateID, OrganizationID: t.OrganizationID, TemplateName: t.TemplateName,
		TemplateCategory: t.TemplateCategory, IsDelightloop: t.IsDelightloop, Tags: t.Tags, SuccessRate: t.SuccessRate,
		TemplateData: templateDataItem{Goal: goalItem(t.TemplateData.Goal),
			Emails:  convertValues(t.TemplateData.Emails, func(e catalog.Email) emailItem { return emailItem(e) }),
			Meeting: t.TemplateData.Meeting},
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Description: t.Description, ImageURL: t.ImageURL,
	}
}

func (it catalogTemplate) template() catalog.Template {
	return catalog.Template{
		TemplateID: it.TemplateID, OrganizationID: it.OrganizationID, TemplateName: it.TemplateName,
		TemplateCategory: it.TemplateCategory, IsDelightloop: it.IsDelightloop, Tags: it.Tags, SuccessRate: it.SuccessRate,
		TemplateData: catalog.TemplateData{Goal: catalog.Goal(it.TemplateData.Goal),
			Emails:  convertValues(it.TemplateData.Emails, func(e emailItem) catalog.Email { return catalog.Email(e) }),
			Meeting: it.TemplateData.Meeting},
		CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, Description: it.Description, ImageURL: it.ImageURL,
	}
}

// convertValues maps the values of in through f, keeping nil as nil.
func convertValues[K comparable, A, B any](in map[K]A, f func(A) B) map[K]B {
	if in == nil {
		return nil
	}
	out := make(map[K]B, len(in))
	for k, v := range in {
		out[k] = f(v)
	}
	return out
}

// VisibleGift reads a gift org sees, its own or the service catalog's, in
// one request; catalog.ErrNotFound when neither exists.
func (s *Store) VisibleGift(ctx context.Context, orgID, giftID string) (catalog.Gift, error) {
	var it catalogGift
	found, err := s.visible(ctx, orgID, giftSK(giftID), &it)
	if err == nil && !found {
		err = catalog.ErrNotFound
	}
	return it.gift(), err
}

// VisibleTemplate reads a template org sees; see VisibleGift.
func (s *Store) VisibleTemplate(ctx context.Context, orgID, templateID string) (catalog.Template, error) {
	var it catalogTemplate
	found, err := s.visible(ctx, orgID, templateSK(templateID), &it)
	if err == nil && !found {
		err = catalog.ErrNotFound
	}
	return it.template(), err
}

// OwnGift reads a gift of owner's own partition; catalog.ErrNotFound when
// there is none.
func (s *Store) OwnGift(ctx context.Context, ownerID, giftID string) (catalog.Gift, error) {
	var it catalogGift
	found, err := s.get(ctx, orgPK(ownerID), giftSK(giftID), &it)
	if err == nil && !found {
		err = catalog.ErrNotFound
	}
	return it.gift(), err
}

// OwnTemplate reads a template of owner's own partition; see OwnGift.
func (s *Store) OwnTemplate(ctx context.Context, ownerID, templateID string) (catalog.Template, error) {
	var it catalogTemplate
	found, err := s.get(ctx, orgPK(ownerID), templateSK(templateID), &it)
	if err == nil && !found {
		err = catalog.ErrNotFound
	}
	return it.template(), err
}

// GiftsOf reads every gift of each owner, newest first, in the order of
// owners: one Query per owner, whose catalog is small by nature.
func (s *Store) GiftsOf(ctx context.Context, owners []string) ([]catalog.Gift, error) {
	its, err := catalogOf[catalogGift](ctx, s, owners, giftPrefix)
	return convertAll(its, catalogGift.gift), err
}

// TemplatesOf reads every template of each owner; see GiftsOf.
func (s *Store) TemplatesOf(ctx context.Context, owners []string) ([]catalog.Template, error) {
	its, err := catalogOf[catalogTemplate](ctx, s, owners, templatePrefix)
	return convertAll(its, catalogTemplate.template), err
}

// catalogOf reads the items of prefix (gifts or templates) of each owner,
// newest first, in the order of owners.
func catalogOf[T any](ctx context.Context, s *Store, owners []string, prefix string) ([]T, error) {
	var out []T
	for _, owner := range owners {
		items, err := s.queryPrefix(ctx, orgPK(owner), prefix, false)
		if err != nil {
			return nil, err
		}
		vs, err := decodeAll[T](items)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// visible reads sk from org's partition and from the service catalog's in
// one BatchGetItem, preferring the org's own item; found is false when
// neither exists.
func (s *Store) visible(ctx context.Context, orgID, sk string, v any) (found bool, err error) {
	items, err := s.batchGet(ctx, []item{key(orgPK(orgID), sk), key(orgPK(gifting.CatalogOrgID), sk)})
	if err != nil || len(items) == 0 {
		return false, err
	}
	pick := items[0]
	for _, it := range items {
		if pk, _ := it["PK"].(*types.AttributeValueMemberS); pk != nil && pk.Value == orgPK(orgID) {
			pick = it
		}
	}
	return true, unmarshal(pick, v)
}
