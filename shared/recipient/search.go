package recipient

import "github.com/giftcampaign/service/shared/contact"

// A recipients search finds the recipients of a campaign that have, for
// every word of the search, a word of their first or last name starting
// with it (a word prefix, case-insensitively), as a contacts search does
// (shared/contact/search.go, whose tokenizer it uses): `ada`, `love` and
// `ada love` find Ada Lovelace; `lace` does not. Storage keeps one word
// entry per distinct name word of contact.TokenLen characters or more
// (contact.EntryWords), so a search reads the entries of its longest
// term's matches, not the campaign.

// SearchWords are the words a recipient with these contact details is
// found by: the lower-cased, distinct words of its first and last names.
func (d ContactDetails) SearchWords() []string {
	return contact.SearchWords(d.FirstName, d.LastName, "", "", "")
}

// NewSearch is the search for the text a sender typed; ok is false when
// it has no words (no search). Its Lead is "" when every term is shorter
// than contact.TokenLen: such a search reads the campaign's whole list.
func NewSearch(text string) (s contact.Search, ok bool) {
	return contact.NewSearch(text, "")
}
