package pages

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/i18n"
	"github.com/giftcampaign/service/shared/recipient"
)

var english = i18n.For(language.English)

// TestPageTextsAreTranslated: every text the page template and the views
// look up ({{t "…"}}, l.T, l.Text) is in every language's catalog, so no
// German page shows an English line.
func TestPageTextsAreTranslated(t *testing.T) {
	var texts []string
	for _, m := range regexp.MustCompile(`\{\{t ("(?:[^"\\]|\\.)*")`).FindAllStringSubmatch(pagesHTML, -1) {
		s, err := strconv.Unquote(m[1])
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, s)
	}
	if len(texts) < 40 {
		t.Fatalf("found %d texts in the page template: the pattern no longer matches it", len(texts))
	}
	inTemplate := len(texts)
	// The views' own lookups (l.T("…"), l.Text("…")) in the package's
	// sources.
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range sources {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`l\.(?:T|Text)\(("(?:[^"\\]|\\.)*")`).FindAllStringSubmatch(string(src), -1) {
			s, err := strconv.Unquote(m[1])
			if err != nil {
				t.Fatal(err)
			}
			texts = append(texts, s)
		}
	}
	if len(texts)-inTemplate < 30 {
		t.Fatalf("found %d lookups in the views: the pattern no longer matches them", len(texts)-inTemplate)
	}
	for _, s := range timelineStages {
		texts = append(texts, s.label)
	}
	for _, p := range problems {
		texts = append(texts, p[0], p[1])
	}
	for _, s := range texts {
		if !i18n.Translated(s) {
			t.Errorf("%q is not translated", s)
		}
	}
}

// TestPageTemplateHasNoLiteralText: besides its markup and its actions,
// the page template holds no words: every text a recipient reads is a
// {{t "…"}} lookup (or the organization's own data), so a text added as
// a literal cannot show English on a German page.
func TestPageTemplateHasNoLiteralText(t *testing.T) {
	rest := regexp.MustCompile(`(?s)\{\{.*?\}\}`).ReplaceAllString(pagesHTML, "")
	rest = regexp.MustCompile(`(?s)<[^>]*>`).ReplaceAllString(rest, "")
	for _, line := range strings.Split(rest, "\n") {
		if regexp.MustCompile(`[\pL]{2,}`).MatchString(line) {
			t.Errorf("the page template writes %q as a literal: make it {{t \"…\"}} and translate it in shared/i18n/messages", strings.TrimSpace(line))
		}
	}
}

// TestSayTranslatesTheClaimsMessages: the claim's messages a page shows
// are in the recipient's language, those naming a gift with the gift's
// name as the organization wrote it; English reads them as the API
// answers them, and a message the catalog lacks stays as written.
func TestSayTranslatesTheClaimsMessages(t *testing.T) {
	de := i18n.For(language.German)
	for msg, want := range map[string]string{
		"the variant you chose is out of stock; choose another": "die gewählte Variante ist leider nicht mehr vorrätig; bitte wählen Sie eine andere",
		"is out of stock":                            "nicht mehr vorrätig",
		"choose an option of Hoodie «100%»":          "bitte wählen Sie eine Variante für Hoodie «100%»",
		"choose one of the options shown for Hoodie": "bitte wählen Sie eine der angezeigten Varianten für Hoodie",
		"rating or message is required":              "bitte wählen Sie eine Bewertung oder schreiben Sie eine Nachricht",
		"not a message of the service":               "not a message of the service",
	} {
		if got := say(de, msg); got != want {
			t.Errorf("say(de, %q) = %q, want %q", msg, got, want)
		}
		if got := say(english, msg); got != msg {
			t.Errorf("say(en, %q) = %q, want it as written", msg, got)
		}
	}
}

// TestClaimsConflictsAreTranslated: every conflict of a claim the pages
// show (as the form's alert, beside a field, or as the page a refused
// claim leads to) is in every language's catalog.
func TestClaimsConflictsAreTranslated(t *testing.T) {
	for _, err := range []error{recipient.OutOfStock(), recipient.CodesGone(), fulfilment.OutOfStock("g", ""), fulfilment.OutOfStock("g", "v"),
		recipient.ErrMeetingFirst, recipient.ErrAlreadyClaimed, recipient.ErrDeclined, recipient.ErrGiftExpired, recipient.ErrCampaignGone} {
		e := err.(*gifting.Error)
		for _, msg := range append([]string{e.Message}, slices.Collect(maps.Values(e.Details))...) {
			if !i18n.Translated(msg) {
				t.Errorf("%q is not in the catalog", msg)
			}
		}
	}
}
