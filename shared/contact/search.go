package contact

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A contacts search finds the contacts that have, for every word of the
// search, a word starting with it (a word prefix, case-insensitively): the
// words of the first, last and full names and of the company, the email
// address whole and its domain. Storage keeps, for each contact, one token
// entry per distinct token (the first TokenLen characters) of its words, in
// the list index's order, so a search reads the entries of one token, not
// the whole collection. The audience slice searches its members with the
// same functions (SearchWords, Token, WordsText, NewSearch's Lead).

// TokenLen is how many characters of a word its token entry is keyed by. A
// term shorter than that cannot name one token (it starts words of many),
// so a search made only of such terms reads the whole index (Search.Lead is
// "").
const TokenLen = 3

// MaxTokens bounds the token entries of one contact: the words past the
// MaxTokens-th distinct token are found by a search only through a longer
// word's entry (a multi-word search) or the whole-index read.
const MaxTokens = 24

// SearchWords are the words a contact with these fields is found by,
// lower-cased and distinct, in the order given: the whitespace-separated
// words of the names and the company, the email address and its domain.
// An email is one word, so "ada@example.com", "ada" and "example" (its
// domain) find it, "example.com" too, "com" does not.
func SearchWords(firstName, lastName, fullName, email, companyName string) []string {
	var words []string
	add := func(w string) {
		if w != "" && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	for _, f := range []string{firstName, lastName, fullName, companyName} {
		for _, w := range strings.Fields(strings.ToLower(f)) {
			add(w)
		}
	}
	email = strings.ToLower(strings.TrimSpace(email))
	add(email)
	if _, domain, ok := strings.Cut(email, "@"); ok {
		add(domain)
	}
	return words
}

// SearchWords are the words c is found by.
func (c Contact) SearchWords() []string {
	return SearchWords(c.FirstName, c.LastName, c.FullName, c.MailID, c.CompanyName)
}

// Token is the token entry key of a word (or of a term at least TokenLen
// characters long): its first TokenLen characters.
func Token(word string) string {
	i, n := 0, 0
	for i < len(word) && n < TokenLen {
		_, size := utf8.DecodeRuneInString(word[i:])
		i += size
		n++
	}
	return word[:i]
}

// Tokens are the distinct tokens of words, in order, at most MaxTokens. A
// word shorter than TokenLen has none: a term that could start it is
// shorter than TokenLen too, and such searches read the whole index.
func Tokens(words []string) []string {
	var out []string
	for _, w := range words {
		if utf8.RuneCountInString(w) < TokenLen {
			continue
		}
		if t := Token(w); !slices.Contains(out, t) {
			out = append(out, t)
			if len(out) == MaxTokens {
				break
			}
		}
	}
	return out
}

// EntryWords are the words of words that have a search entry each,
// keyed by the word itself (storage's word entries): the distinct words of
// TokenLen characters or more, in order, at most MaxTokens. A search reads
// the entries whose word starts with its longest term, so a long term
// reads its matches only; a contact with two words that both start with a
// term is counted once, at the first of them (FirstEntryWord).
func EntryWords(words []string) []string {
	var out []string
	for _, w := range words {
		if utf8.RuneCountInString(w) < TokenLen || slices.Contains(out, w) {
			continue
		}
		if out = append(out, w); len(out) == MaxTokens {
			break
		}
	}
	return out
}

// FirstEntryWord is the first, in byte order, of the entry words of a
// contact with words (EntryWords) that starts with term; "" when none
// does. Of a contact's entries that a search for term reads, only that
// word's counts, so each contact is counted once.
func FirstEntryWord(words []string, term string) string {
	first := ""
	for _, w := range EntryWords(words) {
		if strings.HasPrefix(w, term) && (first == "" || w < first) {
			first = w
		}
	}
	return first
}

// WordsText is words as one string, each word between spaces, so that a
// term starts a word exactly when " "+term is in it, and is a word when
// " "+term+" " is: what storage's filters check on a token entry.
func WordsText(words []string) string {
	if len(words) == 0 {
		return ""
	}
	return " " + strings.Join(words, " ") + " "
}

// Matches reports whether every term starts one of words: a search's
// answer, as storage's entries compute it.
func Matches(words, terms []string) bool {
	for _, t := range terms {
		if !slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(w, t) }) {
			return false
		}
	}
	return true
}

// Search is a contacts search as storage runs it.
type Search struct {
	// Terms are the lower-cased words of the search (SearchTerms): each
	// must start a word of a contact found.
	Terms []string
	// Lead is the term whose token's entries are read, the longest (the
	// most selective: the fewest words share a long prefix); "" when
	// every term is shorter than TokenLen, and the whole index is read.
	Lead string
	// ListID narrows the search to a list's members; "" for all contacts.
	ListID string
}

// NewSearch is the search for the text a user typed, within listID ("" for
// every contact); ok is false when it has no words (no search).
func NewSearch(text, listID string) (s Search, ok bool) {
	terms := SearchTerms(text)
	if len(terms) == 0 {
		return Search{}, false
	}
	s = Search{Terms: terms, ListID: listID}
	for _, t := range terms {
		if n := utf8.RuneCountInString(t); n >= TokenLen && n > utf8.RuneCountInString(s.Lead) {
			s.Lead = t
		}
	}
	return s, true
}

// NameWords are the words an enrichment by name looks for on a contact:
// those of q's first name, last name and company, each a whole word of the
// contacts that match (Match compares the fields themselves). The first is
// the longest, whose token's entries are read; lead is false when none is
// TokenLen characters long.
func (q Query) NameWords() (words []string, lead bool) {
	words = SearchWords(q.FirstName, q.LastName, "", "", q.CompanyName)
	slices.SortStableFunc(words, func(a, b string) int {
		return utf8.RuneCountInString(b) - utf8.RuneCountInString(a)
	})
	return words, len(words) > 0 && utf8.RuneCountInString(words[0]) >= TokenLen
}
