// Package i18n chooses the language a recipient reads (its contact's
// locale, else the browser's Accept-Language, else English) and holds the
// service's own texts in each language: the pages', the emails' layout,
// the service's shipped email and the service catalog's stock email
// texts. The organization's own texts (campaign name, the sender's note,
// gift names, a tenant's own templates, the footer) never pass through
// it. Messages are keyed by their English text (golang.org/x/text/message),
// so English needs no file and a page template stays readable; each other
// language is one JSON file under messages/ (docs/decisions/0014).
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Supported are the languages the pages and emails are written in; the
// first is the fallback. Adding one: its JSON file under messages/ and its
// tag here (docs/recipient-pages.md, "How to add a language").
var Supported = []language.Tag{language.English, language.German, language.French, language.Spanish}

// files are the translations, one JSON object per language from English
// text to the language's, named by the language's tag.
//
//go:embed messages/*.json
var files embed.FS

var (
	matcher = language.NewMatcher(Supported)
	cat     *catalog.Builder
	// keys are the English texts every language translates: Stock
	// translates only those, so a tenant's text is never formatted.
	keys = map[string]bool{}
)

func init() {
	c, k, err := load()
	if err != nil {
		panic(err)
	}
	cat, keys = c, k
}

// load reads the translations into a catalog, failing on a language whose
// file is missing or does not parse.
func load() (*catalog.Builder, map[string]bool, error) {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	k := map[string]bool{}
	for _, tag := range Supported[1:] {
		data, err := files.ReadFile("messages/" + tag.String() + ".json")
		if err != nil {
			return nil, nil, fmt.Errorf("i18n: no messages for %s: %w", tag, err)
		}
		var msgs map[string]string
		if err := json.Unmarshal(data, &msgs); err != nil {
			return nil, nil, fmt.Errorf("i18n: messages/%s.json: %w", tag, err)
		}
		for en, text := range msgs {
			if err := b.SetString(tag, en, text); err != nil {
				return nil, nil, err
			}
			k[en] = true
		}
	}
	return b, k, nil
}

// MaxLocale bounds a contact's locale (BCP 47 allows long tags; a
// language, script, region and a variant or two fit easily).
const MaxLocale = 35

// Canonical is locale as stored: a well-formed BCP 47 tag in its
// canonical form ("de-at" is "de-AT"), or an error saying why not.
func Canonical(locale string) (string, error) {
	s := strings.TrimSpace(locale)
	if len(s) > MaxLocale {
		return "", fmt.Errorf("must be at most %d characters", MaxLocale)
	}
	t, err := language.Parse(s)
	if err != nil || s == "" {
		return "", fmt.Errorf("must be a BCP 47 language tag such as en, de-DE or es-419")
	}
	return t.String(), nil
}

// Choose is the language of a page or email: the contact's locale when it
// matches a supported language (de-AT is German), else the browser's
// Accept-Language (pages only; "" for emails), else English. A locale or
// header that does not parse counts as none.
func Choose(locale, acceptLanguage string) language.Tag {
	if locale != "" {
		if t, err := language.Parse(locale); err == nil {
			if tag, ok := match(t); ok {
				return tag
			}
		}
	}
	if acceptLanguage != "" {
		if prefs, _, err := language.ParseAcceptLanguage(acceptLanguage); err == nil && len(prefs) > 0 {
			if tag, ok := match(prefs...); ok {
				return tag
			}
		}
	}
	return Supported[0]
}

// match is the supported language the matcher finds for prefs, false when
// it is only the fallback for lack of any match.
func match(prefs ...language.Tag) (language.Tag, bool) {
	_, i, conf := matcher.Match(prefs...)
	if conf == language.No {
		return language.Tag{}, false
	}
	return Supported[i], true
}

// Lang is a chosen language: its tag and its printer.
type Lang struct {
	Tag language.Tag
	p   *message.Printer
}

// For is the language tag, which should be one of Supported.
func For(tag language.Tag) Lang {
	return Lang{Tag: tag, p: message.NewPrinter(tag, message.Catalog(cat))}
}

// Code is the language's code for <html lang>.
func (l Lang) Code() string { return l.Tag.String() }

// T is the English format string key in the language, with args
// (fmt verbs; %[n]s lets a language reorder them). Pass numbers that are
// not amounts as strings: the printer groups digits (2.026).
func (l Lang) T(key string, args ...any) string {
	if l.p == nil {
		return fmt.Sprintf(key, args...)
	}
	return l.p.Sprintf(key, args...)
}

// Stock is text in the language when text is one of the service's own
// texts the catalog translates (a catalog template's subject or HTML),
// else text exactly as written: a tenant's words are never changed.
func (l Lang) Stock(text string) string {
	if !keys[text] {
		return text
	}
	return l.Text(text)
}

// Text is the catalog's text for key, which has no verbs (a month, a
// weekday, a button), in the language.
func (l Lang) Text(key string) string {
	if l.p == nil {
		return key
	}
	return l.p.Sprintf(key)
}

// Date is t's day in the language, without the weekday ("27 November
// 2026", "27. November 2026", "27 novembre 2026", "27 de noviembre de
// 2026"); "" for the zero time. Dates are in UTC: the service does not
// know the recipient's time zone.
func (l Lang) Date(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	return l.T("%[1]s %[2]s %[3]s", strconv.Itoa(t.Day()), l.Text(t.Month().String()), strconv.Itoa(t.Year()))
}

// Day is t's day with its weekday ("Friday 27 November 2026",
// "Freitag, 27. November 2026"); "" for the zero time.
func (l Lang) Day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	return l.T("%[1]s %[2]s", l.Text(t.Weekday().String()), l.Date(t))
}

// Translated reports whether every language translates the English text
// key: tests hold the pages and emails to it.
func Translated(key string) bool { return keys[key] }
