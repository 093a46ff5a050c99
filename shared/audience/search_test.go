package audience

import (
	"slices"
	"strings"
	"testing"
)

// TestMemberWords: a member is found by the words of its names, company
// and email (local part and domain split at their punctuation), each
// once, lower-cased; the job title is not searched; a member has at most
// MaxMemberWords words, each at most maxWordBytes.
func TestMemberWords(t *testing.T) {
	m := Member{FirstName: "Ann", LastName: "O'Brien-Lee", FullName: "Ann O'Brien-Lee", CompanyName: "Acme Corp.",
		MailID: "ann.obrien+gifts@mail.acme.io", JobTitle: "Head of Sales"}
	want := []string{"ann", "o", "brien", "lee", "acme", "corp", "obrien", "gifts", "mail", "io"}
	if got := MemberWords(m); !slices.Equal(got, want) {
		t.Errorf("MemberWords = %q, want %q", got, want)
	}
	if got := MemberWords(Member{FirstName: "Zoë", LastName: "Ünal"}); !slices.Equal(got, []string{"zoë", "ünal"}) {
		t.Errorf("accented names: %q", got)
	}
	many := Member{CompanyName: strings.Repeat("w", 100) + " " + "a b c d e f g h i j k l m n"}
	got := MemberWords(many)
	if len(got) != MaxMemberWords || len(got[0]) != maxWordBytes {
		t.Errorf("a long company: %d words, the first of %d bytes", len(got), len(got[0]))
	}
	if w := cutWord(strings.Repeat("é", 40)); len(w) != 64 || !strings.HasPrefix(strings.Repeat("é", 40), w) {
		t.Errorf("cut at a rune boundary: %q", w)
	}
}

// TestMatchesWords: every term must begin one of the words; a term in
// the middle of a word does not match (the search is by word prefix).
func TestMatchesWords(t *testing.T) {
	words := []string{"ann", "lee", "acme", "io"}
	for _, tt := range []struct {
		terms []string
		want  bool
	}{
		{nil, true},
		{[]string{"an"}, true},
		{[]string{"ann", "le"}, true},
		{[]string{"ann", "smith"}, false},
		{[]string{"nn"}, false},
		{[]string{"cme"}, false},
		{[]string{"annie"}, false},
	} {
		if got := MatchesWords(words, tt.terms); got != tt.want {
			t.Errorf("MatchesWords(%q) = %v, want %v", tt.terms, got, tt.want)
		}
	}
}

// TestLeadTerm: a search reads the entries of its longest term, the first
// of equals.
func TestLeadTerm(t *testing.T) {
	for _, tt := range []struct {
		terms []string
		want  string
	}{
		{[]string{"ann"}, "ann"},
		{[]string{"a", "smith", "lee"}, "smith"},
		{[]string{"abc", "xyz"}, "abc"},
	} {
		if got := LeadTerm(tt.terms); got != tt.want {
			t.Errorf("LeadTerm(%q) = %q, want %q", tt.terms, got, tt.want)
		}
	}
}

// TestMatching: of a search's entries, a member with several words
// beginning with the lead term is kept once, and one whose words miss
// another term is left out.
func TestMatching(t *testing.T) {
	entries := []MemberEntry{
		{ContactID: "a", Words: []string{"ann", "anna", "lee"}},
		{ContactID: "a", Words: []string{"ann", "anna", "lee"}},
		{ContactID: "b", Words: []string{"annie", "smith"}},
		{ContactID: "c", Words: []string{"anne", "lee"}},
	}
	var got []string
	for _, e := range Matching(entries, []string{"ann", "le"}) {
		got = append(got, e.ContactID)
	}
	if !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("Matching = %q, want [a c]", got)
	}
	if n := len(Matching(entries, nil)); n != 3 {
		t.Errorf("no terms: %d entries, want 3 (each contact once)", n)
	}
}
