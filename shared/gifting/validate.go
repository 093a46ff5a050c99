package gifting

import (
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ValidURL reports whether s is an absolute http or https URL.
func ValidURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

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

func oneOf(s string, set []string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}

// tooLong reports whether s has more than max characters. Limits count
// characters, as the API document's maxLength does, not bytes: a name in
// Greek or Japanese gets as many letters as one in English.
func tooLong(s string, max int) bool { return utf8.RuneCountInString(s) > max }

func itoa(i int) string { return strconv.Itoa(i) }
