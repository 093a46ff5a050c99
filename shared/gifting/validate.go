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

// tooLong reports whether s has more than max characters. Limits count
// characters, as the API document's maxLength does, not bytes: a name in
// Greek or Japanese gets as many letters as one in English.
func tooLong(s string, max int) bool { return utf8.RuneCountInString(s) > max }

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
