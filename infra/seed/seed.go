// Package seed holds the service catalog (the gifts and templates every
// organization sees, isDelightloop: true) and the demo organization of the
// local stack.
package seed

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

//go:embed catalog.json
var catalogJSON []byte

// Catalog is the service's own catalog, read from catalog.json in the
// API's shape (gifting's, which the areas not yet moved into slices read
// gifts and templates in).
type Catalog struct {
	Gifts     []gifting.Gift     `json:"gifts"`
	Templates []gifting.Template `json:"templates"`
}

// LoadCatalog returns the embedded service catalog.
func LoadCatalog() (Catalog, error) {
	var c Catalog
	if err := json.Unmarshal(catalogJSON, &c); err != nil {
		return c, fmt.Errorf("catalog.json: %w", err)
	}
	return c, nil
}

// SeedCatalog writes the service catalog; it is idempotent.
func SeedCatalog(ctx context.Context, s *dynamo.Store) (Catalog, error) {
	c, err := LoadCatalog()
	if err != nil {
		return c, err
	}
	gifts := make([]catalog.Gift, len(c.Gifts))
	for i, g := range c.Gifts {
		gifts[i] = giftOf(g)
	}
	templates := make([]catalog.Template, len(c.Templates))
	for i, t := range c.Templates {
		templates[i] = templateOf(t)
	}
	return c, catalog.NewApp(s).Seed(ctx, gifts, templates)
}

// giftOf is g as the catalog slice holds it.
func giftOf(g gifting.Gift) catalog.Gift {
	return catalog.Gift{
		GiftID: g.GiftID, OrganizationID: g.OrganizationID, Name: g.Name, Price: g.Price, Currency: g.Currency,
		Inventory: catalog.Inventory(g.Inventory), Status: catalog.GiftStatus(g.Status), IsDelightloop: g.IsDelightloop,
		CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt, ShortDescription: g.ShortDescription, Description: g.Description,
		ImageURLs: g.ImageURLs, Dimensions: (*catalog.Dimensions)(g.Dimensions), Weight: (*catalog.Weight)(g.Weight),
		CollectionIDs: g.CollectionIDs,
	}
}

// templateOf is t as the catalog slice holds it.
func templateOf(t gifting.Template) catalog.Template {
	var emails map[string]catalog.Email
	if t.TemplateData.Emails != nil {
		emails = make(map[string]catalog.Email, len(t.TemplateData.Emails))
		for kind, e := range t.TemplateData.Emails {
			emails[kind] = catalog.Email(e)
		}
	}
	return catalog.Template{
		TemplateID: t.TemplateID, OrganizationID: t.OrganizationID, TemplateName: t.TemplateName,
		TemplateCategory: t.TemplateCategory, IsDelightloop: t.IsDelightloop, Tags: t.Tags, SuccessRate: t.SuccessRate,
		TemplateData: catalog.TemplateData{Goal: catalog.Goal(t.TemplateData.Goal), Emails: emails},
		CreatedAt:    t.CreatedAt, UpdatedAt: t.UpdatedAt, Description: t.Description, ImageURL: t.ImageURL,
	}
}

// Demo is the demo organization of the local stack and its key.
type Demo struct {
	Org    gifting.Organization `json:"organization"`
	Wallet wallet.Wallet        `json:"-"` // the runner prints only the key
	APIKey string               `json:"apiKey"`
}

// DemoOrgID is the id of the demo organization.
const DemoOrgID = "demo"

// SeedDemo creates the demo organization with credits and an API key.
func SeedDemo(ctx context.Context, s *dynamo.Store) (Demo, error) {
	org, w, err := access.NewApp(s).CreateOrg(ctx, access.NewOrg{
		OrgID: DemoOrgID, Name: "Demo Gifting Co", Domain: "demo.example.com", Credits: 100_000,
		Budget: gifting.Budget{Currency: "USD", Amount: 100_000}, Products: []string{"gifting"},
	})
	if err != nil {
		return Demo{}, fmt.Errorf("demo organization: %w", err)
	}
	key, _, err := s.CreateAPIKey(ctx, org.OrgID, "demo-user", "local demo key")
	if err != nil {
		return Demo{}, fmt.Errorf("demo key: %w", err)
	}
	return Demo{Org: org, Wallet: w, APIKey: key}, nil
}
