package contact_test

import (
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestQueryValidate: an enrichment names someone by a LinkedIn URL, or by
// first name, last name and company.
func TestQueryValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		q      contact.Query
		fields []string
	}{
		{"a LinkedIn URL", contact.Query{LinkedinURL: " https://linkedin.com/in/ada "}, nil},
		{"a name and company", contact.Query{FirstName: "Ada", LastName: "Lovelace", CompanyName: "Engines"}, nil},
		{"nothing", contact.Query{}, []string{"firstname", "lastname", "company_name"}},
		{"no company", contact.Query{FirstName: "Ada", LastName: "Lovelace"}, []string{"company_name"}},
		{"a URL that is none", contact.Query{LinkedinURL: "linkedin.com/in/ada"}, []string{"linkedin_url"}},
		{"too long", contact.Query{LinkedinURL: "https://linkedin.com/in/" + strings.Repeat("a", 2048)}, []string{"linkedin_url"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.q.Validate()
			if tt.fields == nil {
				if err != nil {
					t.Errorf("Validate = %v, want nil", err)
				}
				return
			}
			var e *gifting.Error
			if !asDomainError(err, &e) || e.Code != gifting.CodeValidation || len(e.Details) != len(tt.fields) {
				t.Fatalf("Validate = %v; want VALIDATION_FAILED naming %v", err, tt.fields)
			}
			for _, f := range tt.fields {
				if e.Details[f] == "" {
					t.Errorf("no problem with %s in %v", f, e.Details)
				}
			}
		})
	}
}

// TestFinder: the answer is the newest contact with the query's LinkedIn
// URL (as LinkedinKey compares them), else the newest with its first name,
// last name and company; lookalikes are passed over; a LinkedIn match
// beats a newer name match.
func TestFinder(t *testing.T) {
	t.Parallel()
	alan := contact.Contact{ContactID: "alan", FirstName: "Alan", LastName: "Ngo", CompanyName: "Acme"}
	al := contact.Contact{ContactID: "al", FirstName: "AL", LastName: "ng", CompanyName: "ACME", LinkedinURL: "https://linkedin.com/in/al"}
	raj := contact.Contact{ContactID: "raj", FirstName: "Raj", LastName: "K", CompanyName: "Acme", LinkedinURL: "https://www.linkedin.com/in/Raj-K/"}
	for _, tt := range []struct {
		name       string
		q          contact.Query
		candidates [][]contact.Contact
		want, by   string
		done       bool
	}{
		{"by name and company", contact.Query{FirstName: "Al", LastName: "Ng", CompanyName: "Acme"},
			[][]contact.Contact{{alan, al}}, "al", contact.MatchedByNameCompany, true},
		{"by LinkedIn URL", contact.Query{LinkedinURL: "http://linkedin.com/in/raj-k?trk=x"},
			[][]contact.Contact{{alan, al}, {raj}}, "raj", contact.MatchedByLinkedin, true},
		{"a LinkedIn match beats a newer name match", contact.Query{FirstName: "Al", LastName: "Ng", CompanyName: "Acme",
			LinkedinURL: "https://linkedin.com/in/raj-k"}, [][]contact.Contact{{al}, {raj}}, "raj", contact.MatchedByLinkedin, true},
		{"a name match waits for a LinkedIn one", contact.Query{FirstName: "Al", LastName: "Ng", CompanyName: "Acme",
			LinkedinURL: "https://linkedin.com/in/nobody"}, [][]contact.Contact{{al}}, "al", contact.MatchedByNameCompany, false},
		{"no match", contact.Query{LinkedinURL: "https://linkedin.com/in/nobody"}, [][]contact.Contact{{alan, al, raj}}, "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := contact.NewFinder(tt.q)
			for _, c := range tt.candidates {
				f.See(c)
			}
			a := f.Answer()
			got := ""
			if a.Person != nil {
				got = a.Person.ContactID
			}
			if got != tt.want || a.MatchedBy != tt.by || a.Matched != (tt.want != "") || a.Provider != contact.ProviderContacts || f.Done() != tt.done {
				t.Errorf("answer %+v (person %q), done %v; want %q by %q, done %v", a, got, f.Done(), tt.want, tt.by, tt.done)
			}
		})
	}
}
