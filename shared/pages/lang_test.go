package pages

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/text/language"

	"github.com/giftcampaign/service/shared/i18n"
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
