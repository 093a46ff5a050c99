package gifting

import (
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// httpURL is the API document's HttpURL pattern: http or https, a host of
// letters, digits, dots and hyphens, an optional port, then a path, query
// or fragment without spaces or control characters and with '%' only in
// escapes. net/url alone accepts more (a comma in the host, user info).
var httpURL = regexp.MustCompile(`^https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:[/?#](?:[^\x00-\x20\x7f%]|%[0-9A-Fa-f]{2})*)?$`)

// ValidURL reports whether s is an absolute http or https URL as the API
// document's HttpURL describes it.
func ValidURL(s string) bool { return httpURL.MatchString(s) }

// demoImage is the path of one of the demo images the recipient pages
// serve (/assets/gifts/<name>.png): a gift image may name one, and the
// pages and emails load it from the stack's own public address.
var demoImage = regexp.MustCompile(`^/assets/gifts/[a-z0-9][a-z0-9-]{0,62}\.png$`)

// DemoImagePath reports whether s is the path of a demo image.
func DemoImagePath(s string) bool { return demoImage.MatchString(s) }

// orgIDPattern is the shape of an organization id: 2 to 63 lower-case
// letters, digits or dashes, not starting with a dash (it names the
// organization in keys and page ids).
var orgIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,62}$`)

// ValidOrgID reports whether s has the shape of an organization id.
func ValidOrgID(s string) bool { return orgIDPattern.MatchString(s) }

// NormalizeEmail validates an email address and returns it trimmed and
// lower-cased, the form used to match contacts. It accepts a bare address
// only, not a display name.
func NormalizeEmail(s string) (string, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || len(s) > 254 {
		return "", false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return "", false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 1 || !strings.Contains(s[at+1:], ".") || strings.HasSuffix(s, ".") {
		return "", false
	}
	return s, true
}

// TooLong reports whether s has more than max characters. Limits count
// characters, as the API document's maxLength does, not bytes: a name in
// Greek or Japanese gets as many letters as one in English.
func TooLong(s string, max int) bool { return utf8.RuneCountInString(s) > max }

func tooLong(s string, max int) bool { return TooLong(s, max) }

// Limits the resources' fields share: a URL of at most 2,048 characters,
// and a list of words (tags, collections, criteria) of at most 50 entries
// of at most 100 characters each.
const (
	maxURLLen          = 2048
	MaxURLLength       = maxURLLen
	MaxListEntries     = 50
	MaxListEntryLength = 100
)

// CleanStrings trims the entries of a string list, drops blank ones and
// repeats (case-insensitively), and records in p a list or an entry that is
// too long. A list is too long as sent, repeats included (the API
// document's maxItems). It never returns nil.
func CleanStrings(p *Problems, field string, in []string, maxItems, maxLen int) []string {
	if len(in) > maxItems {
		p.Add(field, "must hold at most "+itoa(maxItems)+" entries")
		in = in[:maxItems] // the rest is refused anyway; comparing it would cost the square of the list
	}
	out := make([]string, 0, len(in))
	for _, s := range in {
		s = strings.TrimSpace(s)
		if s == "" || containsFold(out, s) {
			continue
		}
		if tooLong(s, maxLen) {
			p.Add(field, "entries must be at most "+itoa(maxLen)+" characters")
		}
		out = append(out, s)
	}
	if len(out) > maxItems {
		p.Add(field, "must hold at most "+itoa(maxItems)+" entries")
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// ValidCurrency reports whether c looks like an ISO 4217 code (three
// upper-case letters).
func ValidCurrency(c string) bool { return currencyCode.MatchString(c) }

var hexColour = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// ValidHexColour reports whether c is a #rrggbb colour.
func ValidHexColour(c string) bool { return hexColour.MatchString(c) }

func itoa(i int) string { return strconv.Itoa(i) }

// MaxIDLength is the longest identifier the service issues or accepts.
const MaxIDLength = 128

// ValidID reports whether s can be an identifier of the service: 1 to
// MaxIDLength ASCII letters, digits, '-', '_', '.' or ':'. Every id the
// service issues fits (ULIDs, page ids, catalog ids such as
// gift-artisan-coffee), so anything else names nothing and needs no read;
// the rule also keeps the key separator '#' out of every key built from
// input.
func ValidID(s string) bool {
	return s != "" && len(s) <= MaxIDLength && IDCharacters(s)
}

// IDCharacters reports whether s holds only the characters of ids
// (ValidID's), at any length.
func IDCharacters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

// Clip shortens a value a client sent to at most max bytes (cut on a
// character boundary) followed by its full length, for logs and messages:
// a caller controls its size, and a log line must not.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(" + itoa(len(s)) + " bytes)"
}
