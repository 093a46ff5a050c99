package audience

import (
	"slices"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

func TestInferSeniority(t *testing.T) {
	for _, tt := range []struct{ title, want string }{
		{"Chief Executive Officer", "c_suite"},
		{"CTO", "c_suite"},
		{"Co-Founder & CEO", "c_suite"},
		{"President", "c_suite"},
		{"Vice President of Sales", "vp"},
		{"SVP, Marketing", "vp"},
		{"Head of People", "head"},
		{"Senior Director, Engineering", "director"},
		{"Managing Director", "c_suite"},
		{"Sr. Product Manager", "manager"},
		{"Team Lead", "manager"},
		{"Senior Software Engineer", "senior"},
		{"Software Engineer", "individual_contributor"},
		{"Account Executive", "individual_contributor"},
		{"Marketing Intern", "entry"},
		{"Jr. Accountant", "entry"},
		{"Director", "director"},
		{"", ""},
	} {
		t.Run(tt.title, func(t *testing.T) {
			if got := InferSeniority(tt.title); got != tt.want {
				t.Errorf("InferSeniority(%q) = %q, want %q", tt.title, got, tt.want)
			}
		})
	}
}

func TestInferDepartments(t *testing.T) {
	for _, tt := range []struct {
		title string
		want  []string
	}{
		{"VP Engineering", []string{"engineering"}},
		{"Product Marketing Manager", []string{"marketing", "product"}},
		{"Head of HR", []string{"human_resources"}},
		{"Account Executive", []string{"sales"}},
		{"CFO", []string{"finance"}},
		{"IT Manager", []string{"it"}},
		{"Director", []string{}},
	} {
		t.Run(tt.title, func(t *testing.T) {
			if got := InferDepartments(tt.title); !slices.Equal(got, tt.want) {
				t.Errorf("InferDepartments(%q) = %v, want %v", tt.title, got, tt.want)
			}
		})
	}
}

func contact(title, country, state string) Contact {
	return Contact{ContactID: "c", JobTitle: title, Address: gifting.Address{Country: country, State: state}}
}

func TestMatcher(t *testing.T) {
	for _, tt := range []struct {
		name    string
		persona Criteria
		contact Contact
		want    bool
		on      MatchedOn
	}{
		{"title contained, any case", Criteria{JobTitles: []string{"vp sales"}}, contact("Senior VP of Sales, EMEA", "", ""), true, MatchedOn{JobTitle: "vp sales"}},
		{"title spelled out", Criteria{JobTitles: []string{"VP Sales"}}, contact("Vice President, Sales", "", ""), true, MatchedOn{JobTitle: "VP Sales"}},
		{"title is whole words", Criteria{JobTitles: []string{"CTO"}}, contact("Director", "", ""), false, MatchedOn{}},
		{"second title of several", Criteria{JobTitles: []string{"Founder", "Engineer"}}, contact("Staff Engineer", "", ""), true, MatchedOn{JobTitle: "Engineer"}},
		{"no job title", Criteria{JobTitles: []string{"Engineer"}}, contact("", "US", ""), false, MatchedOn{}},
		{"known department", Criteria{Departments: []string{"Human Resources"}}, contact("Talent Acquisition Lead", "", ""), true, MatchedOn{Department: "Human Resources"}},
		{"unknown department as phrase", Criteria{Departments: []string{"Procurement Strategy"}}, contact("Procurement Strategy Analyst", "", ""), true, MatchedOn{Department: "Procurement Strategy"}},
		{"department not in title", Criteria{Departments: []string{"Finance"}}, contact("Software Engineer", "", ""), false, MatchedOn{}},
		{"seniority alias", Criteria{SeniorityLevels: []string{"C-Level"}}, contact("Chief Revenue Officer", "", ""), true, MatchedOn{Seniority: "C-Level"}},
		{"seniority other level", Criteria{SeniorityLevels: []string{"director"}}, contact("VP Finance", "", ""), false, MatchedOn{}},
		{"country by code", Criteria{Locations: []Location{{Country: "United States"}}}, contact("x", "USA", "CA"), true, MatchedOn{Location: "United States"}},
		{"region by state name", Criteria{Locations: []Location{{Country: "US", Region: "California"}}}, contact("x", "us", "CA"), true, MatchedOn{Location: "US/California"}},
		{"region elsewhere", Criteria{Locations: []Location{{Country: "US", Region: "Texas"}}}, contact("x", "US", "CA"), false, MatchedOn{}},
		{"region only", Criteria{Locations: []Location{{Region: "Bavaria"}}}, contact("x", "Germany", "bavaria"), true, MatchedOn{Location: "Bavaria"}},
		{"kinds combine with AND", Criteria{JobTitles: []string{"Engineer"}, Locations: []Location{{Country: "FR"}}}, contact("Engineer", "Germany", ""), false, MatchedOn{}},
		{"all kinds met", Criteria{JobTitles: []string{"Marketing"}, Departments: []string{"marketing"}, SeniorityLevels: []string{"VP"},
			Locations: []Location{{Country: "UK"}, {Country: "Ireland"}}}, contact("VP Marketing", "Ireland", "Dublin"), true,
			MatchedOn{JobTitle: "Marketing", Department: "marketing", Seniority: "VP", Location: "Ireland"}},
		{"no criteria matches nothing", Criteria{Name: "Everyone?"}, contact("CEO", "US", "NY"), false, MatchedOn{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			on, ok := NewMatcher(tt.persona).Match(tt.contact)
			if ok != tt.want || on != tt.on {
				t.Errorf("Match = %+v, %v; want %+v, %v", on, ok, tt.on, tt.want)
			}
		})
	}
	t.Run("primary address entry when address is empty", func(t *testing.T) {
		c := Contact{JobTitle: "x", Addresses: []gifting.AddressEntry{{Address: gifting.Address{Country: "Canada"}}, {Address: gifting.Address{Country: "Japan"}, IsPrimary: true}}}
		if _, ok := NewMatcher(Criteria{Locations: []Location{{Country: "JP"}}}).Match(c); !ok {
			t.Error("a contact whose primary address is in Japan does not match country JP")
		}
	})
	t.Run("deleted contact", func(t *testing.T) {
		c := contact("Engineer", "", "")
		c.IsDeleted = true
		if _, ok := NewMatcher(Criteria{JobTitles: []string{"Engineer"}}).Match(c); ok {
			t.Error("a deleted contact matches")
		}
	})
}
