package audience

import (
	"slices"
	"testing"
)

// TestMatchSpelledOutAndDottedTitles: a title or a country written out in
// full, or with dots, matches the persona that names it the short way (and
// back), as "VP Sales" already matched "Vice President of Sales": a CEO
// persona that missed every "Chief Executive Officer", or a US persona every
// contact in the "U.S.", left them out of the audience silently.
func TestMatchSpelledOutAndDottedTitles(t *testing.T) {
	for _, tt := range []struct {
		name    string
		persona Criteria
		c       Contact
		want    bool
	}{
		{"CEO persona, spelled-out contact", Criteria{JobTitles: []string{"CEO"}}, contact("Chief Executive Officer", "", ""), true},
		{"spelled-out persona, CEO contact", Criteria{JobTitles: []string{"Chief Executive Officer"}}, contact("CEO & Founder", "", ""), true},
		{"CTO persona, spelled-out contact", Criteria{JobTitles: []string{"CTO"}}, contact("Chief Technology Officer, EMEA", "", ""), true},
		{"CFO is not CEO", Criteria{JobTitles: []string{"CEO"}}, contact("Chief Financial Officer", "", ""), false},
		{"executive department", Criteria{Departments: []string{"executive"}}, contact("Chief Executive Officer", "", ""), true},
		{"engineering department", Criteria{Departments: []string{"engineering"}}, contact("Chief Technology Officer", "", ""), true},
		{"operations department", Criteria{Departments: []string{"operations"}}, contact("Chief Operating Officer", "", ""), true},
		{"V.P. is vp", Criteria{SeniorityLevels: []string{"vp"}}, contact("V.P. Operations", "", ""), true},
		{"U.S. is the United States", Criteria{Locations: []Location{{Country: "United States", Region: "NY"}}}, contact("x", "U.S.", "New York"), true},
		{"U.S.A. is US", Criteria{Locations: []Location{{Country: "US"}}}, contact("x", "U.S.A.", ""), true},
		{"U.K. is GB", Criteria{Locations: []Location{{Country: "GB"}}}, contact("x", "U.K.", "London"), true},
		{"U.S. persona", Criteria{Locations: []Location{{Country: "U.S."}}}, contact("x", "USA", ""), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, ok := NewMatcher(tt.persona).Match(tt.c); ok != tt.want {
				t.Errorf("persona %+v, contact %q in %q/%q: match %v, want %v", tt.persona, tt.c.JobTitle, tt.c.Address.Country, tt.c.Address.State, ok, tt.want)
			}
		})
	}
}

// TestSeniorityOfWhoTheRoleServes: a title naming whom the role serves
// ("Executive Assistant to the CEO") or an agile role named "owner" is not
// C-suite: a C-suite audience, which spends credits per member, took in
// every CEO's assistant and every product owner.
func TestSeniorityOfWhoTheRoleServes(t *testing.T) {
	for _, tt := range []struct {
		title string
		level string
		depts []string
	}{
		{"Executive Assistant to the CEO", "entry", []string{}},
		{"Assistant to the VP of Sales", "entry", []string{}},
		{"Product Owner", "individual_contributor", []string{"product"}},
		{"Senior Product Owner", "senior", []string{"product"}},
		{"Owner", "c_suite", []string{"executive"}},
		{"Business Owner & CEO", "c_suite", []string{"executive"}},
		{"Head of Go-To-Market", "head", []string{}},
	} {
		t.Run(tt.title, func(t *testing.T) {
			if got := InferSeniority(tt.title); got != tt.level {
				t.Errorf("InferSeniority(%q) = %q, want %q", tt.title, got, tt.level)
			}
			if got := InferDepartments(tt.title); !slices.Equal(got, tt.depts) {
				t.Errorf("InferDepartments(%q) = %v, want %v", tt.title, got, tt.depts)
			}
		})
	}
}
