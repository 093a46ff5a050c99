package audience

import (
	"slices"
	"strings"
	"unicode"
)

// A search over an audience's members matches word prefixes: each word of
// the search must begin a word of the member's first, last or full name,
// company or email (whose local part and domain split into words at their
// dots, dashes, plus signs and the @). Storage writes one search entry per
// word of a member (MemberWords) with the build, so a search reads the
// entries of one word prefix, never the whole audience.

// MaxMemberWords bounds the search entries written for one member: each
// costs a write unit. Longer names and company names are still listed;
// their words past this many are not searchable.
const MaxMemberWords = 12

// maxWordBytes bounds a word in a search entry's key; a longer word is
// cut (a search for its beginning still finds it).
const maxWordBytes = 64

// Words splits text into its lower-cased words: runs of letters and
// digits. Everything else separates words.
func Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// MemberWords are the distinct words a search finds m by, in a fixed
// order (names first, then company, then email), at most MaxMemberWords,
// each at most maxWordBytes.
func MemberWords(m Member) []string {
	var out []string
	for _, f := range []string{m.FirstName, m.LastName, m.FullName, m.CompanyName, m.MailID} {
		for _, w := range Words(f) {
			w = cutWord(w)
			if !slices.Contains(out, w) && len(out) < MaxMemberWords {
				out = append(out, w)
			}
		}
	}
	return out
}

// cutWord cuts w to at most maxWordBytes, at a rune boundary.
func cutWord(w string) string {
	if len(w) <= maxWordBytes {
		return w
	}
	cut := maxWordBytes
	for cut > 0 && !utf8RuneStart(w[cut]) {
		cut--
	}
	return w[:cut]
}

// utf8RuneStart reports whether b starts a rune in UTF-8.
func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// MatchesWords reports whether every term begins one of words.
func MatchesWords(words, terms []string) bool {
	for _, t := range terms {
		if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, t) }) {
			return false
		}
	}
	return true
}

// LeadTerm is the term whose search entries a search reads: the longest
// (a longer prefix matches fewer words), the first of equals. The other
// terms are checked against the words each entry carries.
func LeadTerm(terms []string) string {
	lead := ""
	for _, t := range terms {
		if len(t) > len(lead) {
			lead = t
		}
	}
	return cutWord(lead)
}
