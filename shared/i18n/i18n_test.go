package i18n

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"
	"time"

	"golang.org/x/text/language"
)

// TestChoose: the contact's locale first, then the browser's
// Accept-Language, then English; a region or script of a supported
// language is that language; anything unsupported or unreadable falls
// through to the next source.
func TestChoose(t *testing.T) {
	for _, c := range []struct {
		locale, accept string
		want           language.Tag
	}{
		{"de", "", language.German},
		{"de-AT", "", language.German},
		{"fr-CA", "en-US", language.French},
		{"es-419", "", language.Spanish},
		{"de", "fr-FR,fr;q=0.9", language.German},        // the locale wins over the browser
		{"", "fr-FR,fr;q=0.9,en;q=0.5", language.French}, // no locale: the browser
		{"", "ja,es;q=0.8", language.Spanish},            // the browser's first supported choice
		{"ja", "de-CH,de;q=0.9", language.German},        // an unsupported locale: the browser
		{"ja", "", language.English},                     // nothing supported: English
		{"", "", language.English},                       // nothing known: English
		{"", "zh-TW,ko;q=0.5", language.English},         // unsupported browser: English
		{"not a tag!", "garbage;;q=x", language.English}, // unreadable: English
		{"en-GB", "de", language.English},                // English is a language like the others
		{"pt-BR", "", language.English},                  // not Spanish just because it is close
	} {
		if got := Choose(c.locale, c.accept); got != c.want {
			t.Errorf("Choose(%q, %q) = %s, want %s", c.locale, c.accept, got, c.want)
		}
	}
}

// TestCanonical: a well-formed BCP 47 tag is stored canonical; anything
// else is refused with a message that says what is expected.
func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{"de": "de", "de-at": "de-AT", " fr-CA ": "fr-CA", "es-419": "es-419", "zh-Hant-TW": "zh-Hant-TW"} {
		if got, err := Canonical(in); err != nil || got != want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "not a locale", "de_DE_x", "12", "english", "de-AT-" + string(make([]byte, 40))} {
		if got, err := Canonical(bad); err == nil {
			t.Errorf("Canonical(%q) = %q, want an error", bad, got)
		}
	}
}

// TestDates: a date reads as the language writes it, weekday and month
// in words, the year without digit grouping.
func TestDates(t *testing.T) {
	d := time.Date(2026, time.November, 27, 23, 30, 0, 0, time.UTC)
	for tag, want := range map[language.Tag][2]string{
		language.English: {"27 November 2026", "Friday 27 November 2026"},
		language.German:  {"27. November 2026", "Freitag, 27. November 2026"},
		language.French:  {"27 novembre 2026", "vendredi 27 novembre 2026"},
		language.Spanish: {"27 de noviembre de 2026", "viernes, 27 de noviembre de 2026"},
	} {
		l := For(tag)
		if got := l.Date(d); got != want[0] {
			t.Errorf("%s: Date = %q, want %q", tag, got, want[0])
		}
		if got := l.Day(d); got != want[1] {
			t.Errorf("%s: Day = %q, want %q", tag, got, want[1])
		}
	}
	if got := For(language.German).Day(time.Time{}); got != "" {
		t.Errorf("the zero time is %q, want nothing", got)
	}
}

// verbs are the fmt verbs and the {{placeholders}} of a text: a
// translation must keep every one, or a name or link goes missing.
var verbs = regexp.MustCompile(`%(\[\d\])?[sd]|\{\{\w+\}\}`)

// TestCatalogsComplete: every language translates the same texts, each
// keeping the English text's verbs and placeholders, and none is left
// empty or English.
func TestCatalogsComplete(t *testing.T) {
	var english []string
	for i, tag := range Supported[1:] {
		data, err := files.ReadFile("messages/" + tag.String() + ".json")
		if err != nil {
			t.Fatal(err)
		}
		var msgs map[string]string
		if err := json.Unmarshal(data, &msgs); err != nil {
			t.Fatal(err)
		}
		var ks []string
		for en, text := range msgs {
			ks = append(ks, en)
			a, b := verbs.FindAllString(en, -1), verbs.FindAllString(text, -1)
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Errorf("%s: %q keeps %v of %v", tag, text, b, a)
			}
			if text == "" {
				t.Errorf("%s: %q is not translated", tag, en)
			}
			if text == en && len(en) > 12 && regexp.MustCompile(`[a-z]{3}`).MatchString(en) {
				t.Errorf("%s: %q is left in English", tag, en)
			}
		}
		slices.Sort(ks)
		if i == 0 {
			english = ks
		} else if !slices.Equal(ks, english) {
			t.Errorf("%s translates %d texts, %s %d: every language must translate the same ones", tag, len(ks), Supported[1], len(english))
		}
	}
}

// TestStockOnlyTranslatesTheCatalog: the service's own texts are
// translated; a tenant's text, even one with a % in it, comes back as
// written.
func TestStockOnlyTranslatesTheCatalog(t *testing.T) {
	de := For(language.German)
	if got := de.Stock("Did your gift arrive?"); got != "Ist Ihr Geschenk angekommen?" {
		t.Errorf("a catalog subject in German is %q", got)
	}
	for _, own := range []string{"Your 100% gift, {{firstName}}", "Did your gift arrive? ", "<p>Hi</p>"} {
		if got := de.Stock(own); got != own {
			t.Errorf("a tenant's %q became %q", own, got)
		}
	}
}
