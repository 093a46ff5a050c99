// Package seed holds the service catalog (the gifts and templates every
// organization sees, isDelightloop: true) and the demo organization of the
// local stack.
package seed

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

//go:embed catalog.json
var catalogJSON []byte

// Catalog is the service's own catalog.
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
	return c, s.SeedCatalog(ctx, c.Gifts, c.Templates)
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
	org, w, err := s.CreateOrg(ctx, dynamo.NewOrg{
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
