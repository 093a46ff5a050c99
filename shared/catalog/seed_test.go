package catalog_test

import (
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

var now = time.Date(2026, 11, 23, 9, 2, 0, 0, time.UTC)

// TestNewGift: a tenant's gift is checked, and the server sets its id,
// owner, times and isDelightloop (false: only the seed makes catalog
// gifts), whatever the caller put there.
func TestNewGift(t *testing.T) {
	t.Parallel()
	in := mug()
	in.GiftID, in.OrganizationID, in.IsDelightloop = "mine", "other", true
	g, err := catalog.NewGift(in, "acme", "g1", now)
	if err != nil {
		t.Fatal(err)
	}
	if g.GiftID != "g1" || g.OrganizationID != "acme" || g.IsDelightloop || !g.CreatedAt.Equal(now) || !g.UpdatedAt.Equal(now) {
		t.Errorf("new gift = %+v", g)
	}
	in.Name = ""
	if _, err := catalog.NewGift(in, "acme", "g2", now); gifting.ErrorCode(err) != gifting.CodeValidation {
		t.Errorf("a gift without a name: %v, want VALIDATION_FAILED", err)
	}
	m, err := catalog.NewTemplate(catalog.Template{TemplateName: "T", IsDelightloop: true}, "acme", "t1", now)
	if err != nil || m.TemplateID != "t1" || m.OrganizationID != "acme" || m.IsDelightloop || !m.CreatedAt.Equal(now) {
		t.Errorf("new template = %+v, %v", m, err)
	}
}

// TestSeedGift: re-seeding the catalog (a deploy, an operator adding a
// gift) must not give back the units recipients have claimed: a gift
// already stored keeps its stored inventory; a new one gets the seed's.
func TestSeedGift(t *testing.T) {
	t.Parallel()
	seed := mug()
	seed.GiftID = "gift-artisan-coffee"
	claimed := seed
	claimed.Inventory = catalog.Inventory{Total: 10, Available: 6, Reserved: 4}
	dated := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name        string
		seed        catalog.Gift
		stored      *catalog.Gift
		wantStock   catalog.Inventory
		wantCreated time.Time
		wantErr     string
	}{
		{"a new gift gets the seed's stock", seed, nil, seed.Inventory, now, ""},
		{"a stored gift keeps its stock", seed, &claimed, claimed.Inventory, now, ""},
		{"a date in the seed is kept", func() catalog.Gift { g := seed; g.CreatedAt = dated; return g }(), nil, seed.Inventory, dated, ""},
		{"an invalid seed names the gift", func() catalog.Gift { g := seed; g.Currency = "usd"; return g }(), nil,
			catalog.Inventory{}, time.Time{}, "catalog gift gift-artisan-coffee"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := catalog.SeedGift(tt.seed, tt.stored, now)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || gifting.ErrorCode(err) != gifting.CodeValidation {
					t.Fatalf("err = %v, want a VALIDATION_FAILED naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Inventory != tt.wantStock || g.OrganizationID != gifting.CatalogOrgID || !g.IsDelightloop ||
				!g.CreatedAt.Equal(tt.wantCreated) || !g.UpdatedAt.Equal(g.CreatedAt) {
				t.Errorf("seeded = %+v; want stock %+v, the catalog's, created %v", g, tt.wantStock, tt.wantCreated)
			}
		})
	}
	t.Run("templates", func(t *testing.T) {
		m, err := catalog.SeedTemplate(catalog.Template{TemplateID: "tmpl-x", TemplateName: "X"}, now)
		if err != nil || m.OrganizationID != gifting.CatalogOrgID || !m.IsDelightloop || !m.CreatedAt.Equal(now) {
			t.Errorf("seeded template = %+v, %v", m, err)
		}
		if _, err := catalog.SeedTemplate(catalog.Template{TemplateID: "tmpl-y"}, now); err == nil || !strings.Contains(err.Error(), "catalog template tmpl-y") {
			t.Errorf("a template without a name: %v", err)
		}
	})
}
