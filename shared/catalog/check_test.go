package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

// mug is a gift CheckGift accepts.
func mug() catalog.Gift {
	return catalog.Gift{Name: "Mug", Price: 10, Currency: "USD", Status: catalog.GiftAvailable,
		Inventory: catalog.Inventory{Total: 10, Available: 8, Reserved: 2}, CollectionIDs: []string{"swag"}}
}

// long is n two-byte characters: limits count characters, not bytes.
func long(n int) string { return strings.Repeat("é", n) }

// url is an image URL of n characters.
func url(n int) string {
	return "https://img.example.com/" + strings.Repeat("a", n-len("https://img.example.com/"))
}

// words are n distinct words of size characters.
func words(n, size int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = string(rune('a'+i%26)) + strings.Repeat("x", size-2) + string(rune('a'+i/26))
	}
	return out
}

func TestCheckGift(t *testing.T) {
	t.Parallel()
	gift := func(f func(g *catalog.Gift)) catalog.Gift {
		g := mug()
		f(&g)
		return g
	}
	for _, tt := range []struct {
		name  string
		g     catalog.Gift
		field string // "" when valid
	}{
		{"a mug", mug(), ""},
		{"every field at its limit", gift(func(g *catalog.Gift) {
			g.Name, g.ShortDescription, g.Description = long(200), long(500), long(2000)
			g.ImageURLs, g.CollectionIDs = append(slices.Repeat([]string{url(40)}, 19), url(2048)), words(50, 100)
			g.Inventory = catalog.Inventory{Total: catalog.MaxInventory, Available: catalog.MaxInventory}
		}), ""},
		{"negative price", gift(func(g *catalog.Gift) { g.Price = -1 }), "price"},
		{"price past the bound", gift(func(g *catalog.Gift) { g.Price = gifting.MaxGiftPrice + 1 }), "price"},
		{"bad currency", gift(func(g *catalog.Gift) { g.Currency = "dollars" }), "currency"},
		{"unknown status", gift(func(g *catalog.Gift) { g.Status = "lost" }), "status"},
		{"missing name", gift(func(g *catalog.Gift) { g.Name = " " }), "name"},
		{"name", gift(func(g *catalog.Gift) { g.Name = long(201) }), "name"},
		{"short description", gift(func(g *catalog.Gift) { g.ShortDescription = long(501) }), "shortDescription"},
		{"description", gift(func(g *catalog.Gift) { g.Description = long(2001) }), "description"},
		{"inventory over total", gift(func(g *catalog.Gift) { g.Inventory = catalog.Inventory{Total: 5, Available: 5, Reserved: 1} }), "inventory"},
		{"negative count", gift(func(g *catalog.Gift) { g.Inventory.Reserved = -1 }), "inventory"},
		{"counts whose sum wraps", gift(func(g *catalog.Gift) {
			huge := 9_000_000_000_000_000_000
			g.Inventory = catalog.Inventory{Total: huge, Available: huge, Reserved: huge}
		}), "inventory"},
		{"count past the bound", gift(func(g *catalog.Gift) { g.Inventory = catalog.Inventory{Total: catalog.MaxInventory + 1} }), "inventory"},
		{"bad image url", gift(func(g *catalog.Gift) { g.ImageURLs = []string{"ftp://x"} }), "imageUrls"},
		{"too many images", gift(func(g *catalog.Gift) { g.ImageURLs = slices.Repeat([]string{url(40)}, 21) }), "imageUrls"},
		{"image URL too long", gift(func(g *catalog.Gift) { g.ImageURLs = []string{url(2049)} }), "imageUrls"},
		{"too many collections", gift(func(g *catalog.Gift) { g.CollectionIDs = words(51, 10) }), "collectionIds"},
		{"collection id too long", gift(func(g *catalog.Gift) { g.CollectionIDs = words(1, 101) }), "collectionIds"},
		{"negative dimensions", gift(func(g *catalog.Gift) { g.Dimensions = &catalog.Dimensions{Height: -1, Unit: "cm"} }), "dimensions"},
		{"bad dimension unit", gift(func(g *catalog.Gift) { g.Dimensions = &catalog.Dimensions{Unit: "ell"} }), "dimensions.unit"},
		{"negative weight", gift(func(g *catalog.Gift) { g.Weight = &catalog.Weight{Weight: -1, Unit: "kg"} }), "weight.weight"},
		{"bad weight unit", gift(func(g *catalog.Gift) { g.Weight = &catalog.Weight{Weight: 1, Unit: "stone"} }), "weight.unit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.g
			wantField(t, catalog.CheckGift(&g), tt.field)
		})
	}
	t.Run("normalizes", func(t *testing.T) {
		g := gift(func(g *catalog.Gift) {
			g.Name, g.Status, g.CollectionIDs = "  Mug ", "", []string{"swag", " SWAG ", ""}
		})
		if err := catalog.CheckGift(&g); err != nil {
			t.Fatal(err)
		}
		if g.Name != "Mug" || g.Status != catalog.GiftAvailable || !slices.Equal(g.CollectionIDs, []string{"swag"}) {
			t.Errorf("got name %q status %q collections %q; want Mug, available, [swag]", g.Name, g.Status, g.CollectionIDs)
		}
	})
}

func TestCheckTemplate(t *testing.T) {
	t.Parallel()
	template := func(f func(m *catalog.Template)) catalog.Template {
		m := catalog.Template{TemplateName: "Thanks", TemplateCategory: "retention", SuccessRate: 10}
		f(&m)
		return m
	}
	email := func(kb int) catalog.Email {
		return catalog.Email{Subject: "Hi {{firstName}}", HTML: "<p>{{firstName}}</p>" + strings.Repeat("x", kb<<10-20)}
	}
	emails := func(kb int, kinds ...string) func(m *catalog.Template) {
		return func(m *catalog.Template) {
			m.TemplateData.Emails = map[string]catalog.Email{}
			for _, k := range kinds {
				m.TemplateData.Emails[k] = email(kb)
			}
		}
	}
	for _, tt := range []struct {
		name  string
		m     catalog.Template
		field string
	}{
		{"every field at its limit", template(func(m *catalog.Template) {
			m.Description, m.Tags, m.TemplateCategory = long(2000), words(50, 100), long(100)
		}), ""},
		{"285 KB of emails", template(emails(95, "addressConfirmation", "reminder1", "reminder2")), ""},
		{"missing name", template(func(m *catalog.Template) { m.TemplateName = "" }), "templateName"},
		{"description", template(func(m *catalog.Template) { m.Description = long(2001) }), "description"},
		{"too many tags", template(func(m *catalog.Template) { m.Tags = words(51, 5) }), "tags"},
		{"tag too long", template(func(m *catalog.Template) { m.Tags = words(1, 101) }), "tags"},
		{"category", template(func(m *catalog.Template) { m.TemplateCategory = long(101) }), "templateCategory"},
		{"success rate over 100", template(func(m *catalog.Template) { m.SuccessRate = 100.5 }), "successRate"},
		{"image URL", template(func(m *catalog.Template) { m.ImageURL = url(2049) }), "imageUrl"},
		{"goal name", template(func(m *catalog.Template) { m.TemplateData.Goal.Name = long(201) }), "templateData.goal.name"},
		{"goal description", template(func(m *catalog.Template) { m.TemplateData.Goal.Description = long(2001) }), "templateData.goal.description"},
		{"goal id", template(func(m *catalog.Template) { m.TemplateData.Goal.GoalID = long(101) }), "templateData.goal.goalId"},
		{"bad logo", template(func(m *catalog.Template) { m.TemplateData.Goal.Logo = "logo.png" }), "templateData.goal.logo"},
		{"bad logo colour", template(func(m *catalog.Template) { m.TemplateData.Goal.LogoColor = "blue" }), "templateData.goal.logoColor"},
		{"http logo", template(func(m *catalog.Template) { m.TemplateData.Goal.Logo = "http://cdn.acme.test/logo.png" }), "templateData.goal.logo"},
		{"logo colour white text cannot be read on", template(func(m *catalog.Template) { m.TemplateData.Goal.LogoColor = "#3b82f6" }),
			"templateData.goal.logoColor"},
		{"logo colour too light for the pages' links", template(func(m *catalog.Template) { m.TemplateData.Goal.LogoColor = "#aabbcc" }),
			"templateData.goal.logoColor"},
		{"a readable logo colour and an https logo", template(func(m *catalog.Template) {
			m.TemplateData.Goal.Logo, m.TemplateData.Goal.LogoColor = "https://cdn.acme.test/q4.png", "#1D4ED8"
		}), ""},
		{"unknown email kind", template(emails(1, "newsletter")), "templateData.emails.newsletter"},
		{"subject with a line break", template(func(m *catalog.Template) {
			m.TemplateData.Emails = map[string]catalog.Email{"addressConfirmation": {Subject: "Hi {{firstName}}\r\nBcc: all@example.com", HTML: "<p>Hi</p>"}}
		}), "templateData.emails.addressConfirmation.subject"},
		{"subject too long", template(func(m *catalog.Template) {
			m.TemplateData.Emails = map[string]catalog.Email{"addressConfirmation": {Subject: strings.Repeat("s", 999), HTML: "<p>x</p>"}}
		}), "templateData.emails.addressConfirmation.subject"},
		{"no subject", template(func(m *catalog.Template) {
			m.TemplateData.Emails = map[string]catalog.Email{"addressConfirmation": {HTML: "<p>x</p>"}}
		}), "templateData.emails.addressConfirmation.subject"},
		{"a 101 KB email", template(emails(101, "addressConfirmation")), "templateData.emails.addressConfirmation.html"},
		{"360 KB of emails", template(emails(90, "addressConfirmation", "reminder1", "reminder2", "postDelivery")), "templateData.emails"},
		{"negative delay", template(func(m *catalog.Template) {
			m.TemplateData.Emails = map[string]catalog.Email{"reminder1": {Subject: "Hi", DelayHours: -1}}
		}), "templateData.emails.reminder1.delayHours"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.m
			wantField(t, catalog.CheckTemplate(&m), tt.field)
		})
	}
	t.Run("normalizes", func(t *testing.T) {
		m := template(func(m *catalog.Template) { m.TemplateName, m.TemplateCategory, m.Tags = " Thanks ", " retention ", nil })
		if err := catalog.CheckTemplate(&m); err != nil {
			t.Fatal(err)
		}
		if m.TemplateName != "Thanks" || m.TemplateCategory != "retention" || m.Tags == nil {
			t.Errorf("got name %q category %q tags %v; want trimmed, tags [] not null", m.TemplateName, m.TemplateCategory, m.Tags)
		}
	})
}
