package contact

import (
	"slices"
	"testing"
)

func TestSearchWords(t *testing.T) {
	got := SearchWords("Ada", "Lovelace", "Ada Lovelace", "Ada.L@Example.COM", "Analytical Engines Ltd")
	want := []string{"ada", "lovelace", "analytical", "engines", "ltd", "ada.l@example.com", "example.com"}
	if !slices.Equal(got, want) {
		t.Fatalf("SearchWords = %q, want %q", got, want)
	}
	if got := SearchWords("", "", "", "", ""); len(got) != 0 {
		t.Fatalf("no fields: %q", got)
	}
	// A full name that differs from first and last adds its own words.
	if got := SearchWords("Bob", "Ng", "Robert Ng", "", ""); !slices.Equal(got, []string{"bob", "ng", "robert"}) {
		t.Fatalf("full name words: %q", got)
	}
}

func TestTokenAndTokens(t *testing.T) {
	for word, want := range map[string]string{"lovelace": "lov", "ng": "ng", "émile": "émi", "日本語テキスト": "日本語", "": ""} {
		if got := Token(word); got != want {
			t.Errorf("Token(%q) = %q, want %q", word, got, want)
		}
	}
	got := Tokens([]string{"john", "johnson", "smith", "jo", "0"})
	if !slices.Equal(got, []string{"joh", "smi"}) {
		t.Fatalf("Tokens = %q", got)
	}
	many := make([]string, 40)
	for i := range many {
		many[i] = string(rune('a'+i%26)) + string(rune('a'+i/26)) + "xx"
	}
	if n := len(Tokens(many)); n != MaxTokens {
		t.Fatalf("Tokens of 40 distinct tokens: %d, want %d", n, MaxTokens)
	}
}

func TestMatchesIsAWordPrefix(t *testing.T) {
	words := SearchWords("Ada", "Lovelace", "", "ada.l@example.com", "Analytical Engines")
	for _, c := range []struct {
		terms []string
		want  bool
	}{
		{[]string{"ada"}, true},
		{[]string{"love"}, true},
		{[]string{"lace"}, false}, // inside a word: a substring, not a prefix
		{[]string{"exam"}, true},  // the email's domain
		{[]string{"ada.l@ex"}, true},
		{[]string{"com"}, false},
		{[]string{"ada", "eng"}, true},
		{[]string{"ada", "zzz"}, false},
	} {
		if got := Matches(words, c.terms); got != c.want {
			t.Errorf("Matches(%q) = %v, want %v", c.terms, got, c.want)
		}
	}
	text := WordsText(words)
	if text[0] != ' ' || text[len(text)-1] != ' ' || WordsText(nil) != "" {
		t.Fatalf("WordsText = %q", text)
	}
}

func TestNewSearchLeadsWithTheLongestTerm(t *testing.T) {
	s, ok := NewSearch("  Al  Johnson ng ", "L1")
	if !ok || s.Lead != "johnson" || !slices.Equal(s.Terms, []string{"al", "johnson", "ng"}) || s.ListID != "L1" {
		t.Fatalf("NewSearch = %+v, %v", s, ok)
	}
	if s, ok := NewSearch("al ng", ""); !ok || s.Lead != "" {
		t.Fatalf("short terms only: %+v, %v", s, ok)
	}
	if _, ok := NewSearch("   ", ""); ok {
		t.Fatal("blank search is a search")
	}
}

func TestQueryNameWords(t *testing.T) {
	words, lead := Query{FirstName: "Al", LastName: "Ng", CompanyName: "Initech Labs"}.NameWords()
	if !lead || words[0] != "initech" || len(words) != 4 {
		t.Fatalf("NameWords = %q, %v", words, lead)
	}
	if _, lead := (Query{FirstName: "Al", LastName: "Ng", CompanyName: "HP"}).NameWords(); lead {
		t.Fatal("no word of TokenLen: lead")
	}
}
