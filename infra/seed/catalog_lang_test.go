package seed_test

import (
	"testing"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/i18n"
)

// TestCatalogTemplatesAreTranslated: every subject and text of the
// service catalog's templates is in every language's catalog, so editing
// one in catalog.json without its translations fails here rather than
// sending it in English to a German recipient.
func TestCatalogTemplatesAreTranslated(t *testing.T) {
	c, err := seed.LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tmpl := range c.Templates {
		for kind, e := range tmpl.TemplateData.Emails {
			for _, text := range []string{e.Subject, e.HTML} {
				n++
				if !i18n.Translated(text) {
					t.Errorf("%s %s: %q has no translations (shared/i18n/messages)", tmpl.TemplateID, kind, text)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("the catalog has no template emails")
	}
}
