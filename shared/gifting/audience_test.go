package gifting

import (
	"errors"
	"slices"
	"strings"
	"testing"
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
	return Contact{ContactID: "c", JobTitle: title, Address: Address{Country: country, State: state}}
}

func TestMatcher(t *testing.T) {
	for _, tt := range []struct {
		name    string
		persona Persona
		contact Contact
		want    bool
		on      MatchedOn
	}{
		{"title contained, any case", Persona{JobTitles: []string{"vp sales"}}, contact("Senior VP of Sales, EMEA", "", ""), true, MatchedOn{JobTitle: "vp sales"}},
		{"title spelled out", Persona{JobTitles: []string{"VP Sales"}}, contact("Vice President, Sales", "", ""), true, MatchedOn{JobTitle: "VP Sales"}},
		{"title is whole words", Persona{JobTitles: []string{"CTO"}}, contact("Director", "", ""), false, MatchedOn{}},
		{"second title of several", Persona{JobTitles: []string{"Founder", "Engineer"}}, contact("Staff Engineer", "", ""), true, MatchedOn{JobTitle: "Engineer"}},
		{"no job title", Persona{JobTitles: []string{"Engineer"}}, contact("", "US", ""), false, MatchedOn{}},
		{"known department", Persona{Departments: []string{"Human Resources"}}, contact("Talent Acquisition Lead", "", ""), true, MatchedOn{Department: "Human Resources"}},
		{"unknown department as phrase", Persona{Departments: []string{"Procurement Strategy"}}, contact("Procurement Strategy Analyst", "", ""), true, MatchedOn{Department: "Procurement Strategy"}},
		{"department not in title", Persona{Departments: []string{"Finance"}}, contact("Software Engineer", "", ""), false, MatchedOn{}},
		{"seniority alias", Persona{SeniorityLevels: []string{"C-Level"}}, contact("Chief Revenue Officer", "", ""), true, MatchedOn{Seniority: "C-Level"}},
		{"seniority other level", Persona{SeniorityLevels: []string{"director"}}, contact("VP Finance", "", ""), false, MatchedOn{}},
		{"country by code", Persona{ContactLocations: []ContactLocation{{Country: "United States"}}}, contact("x", "USA", "CA"), true, MatchedOn{Location: "United States"}},
		{"region by state name", Persona{ContactLocations: []ContactLocation{{Country: "US", Region: "California"}}}, contact("x", "us", "CA"), true, MatchedOn{Location: "US/California"}},
		{"region elsewhere", Persona{ContactLocations: []ContactLocation{{Country: "US", Region: "Texas"}}}, contact("x", "US", "CA"), false, MatchedOn{}},
		{"region only", Persona{ContactLocations: []ContactLocation{{Region: "Bavaria"}}}, contact("x", "Germany", "bavaria"), true, MatchedOn{Location: "Bavaria"}},
		{"kinds combine with AND", Persona{JobTitles: []string{"Engineer"}, ContactLocations: []ContactLocation{{Country: "FR"}}}, contact("Engineer", "Germany", ""), false, MatchedOn{}},
		{"all kinds met", Persona{JobTitles: []string{"Marketing"}, Departments: []string{"marketing"}, SeniorityLevels: []string{"VP"},
			ContactLocations: []ContactLocation{{Country: "UK"}, {Country: "Ireland"}}}, contact("VP Marketing", "Ireland", "Dublin"), true,
			MatchedOn{JobTitle: "Marketing", Department: "marketing", Seniority: "VP", Location: "Ireland"}},
		{"no criteria matches nothing", Persona{Name: "Everyone?"}, contact("CEO", "US", "NY"), false, MatchedOn{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			on, ok := NewMatcher(tt.persona).Match(tt.contact)
			if ok != tt.want || on != tt.on {
				t.Errorf("Match = %+v, %v; want %+v, %v", on, ok, tt.on, tt.want)
			}
		})
	}
	t.Run("primary address entry when address is empty", func(t *testing.T) {
		c := Contact{JobTitle: "x", Addresses: []AddressEntry{{Address: Address{Country: "Canada"}}, {Address: Address{Country: "Japan"}, IsPrimary: true}}}
		if _, ok := NewMatcher(Persona{ContactLocations: []ContactLocation{{Country: "JP"}}}).Match(c); !ok {
			t.Error("a contact whose primary address is in Japan does not match country JP")
		}
	})
	t.Run("deleted contact", func(t *testing.T) {
		c := contact("Engineer", "", "")
		c.IsDeleted = true
		if _, ok := NewMatcher(Persona{JobTitles: []string{"Engineer"}}).Match(c); ok {
			t.Error("a deleted contact matches")
		}
	})
}

func TestPersonaValidate(t *testing.T) {
	valid := func() ICPPersona {
		return ICPPersona{Persona: Persona{Name: "Buyers", JobTitles: []string{" VP Sales ", "vp sales", ""},
			SeniorityLevels: []string{"Director"}, ContactLocations: []ContactLocation{{Country: "US"}}}}
	}
	t.Run("ok with defaults", func(t *testing.T) {
		icp := valid()
		if err := icp.Validate(); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(icp.Persona.JobTitles, []string{"VP Sales"}) || icp.Status != "active" ||
			icp.Metadata.Priority != "medium" || icp.Company == nil || icp.Persona.Departments == nil {
			t.Errorf("normalized persona = %+v", icp)
		}
	})
	for _, tt := range []struct {
		name  string
		edit  func(*ICPPersona)
		field string
	}{
		{"no name", func(i *ICPPersona) { i.Persona.Name = " " }, "persona.name"},
		{"unknown seniority", func(i *ICPPersona) { i.Persona.SeniorityLevels = []string{"overlord"} }, "persona.seniority_levels"},
		{"empty location", func(i *ICPPersona) { i.Persona.ContactLocations = []ContactLocation{{}} }, "persona.contact_locations[0]"},
		{"title without words", func(i *ICPPersona) { i.Persona.JobTitles = []string{"&&"} }, "persona.job_titles"},
		{"unknown priority", func(i *ICPPersona) { i.Metadata.Priority = "urgent" }, "metadata.priority"},
		{"unknown status", func(i *ICPPersona) { i.Status = "deleted" }, "status"},
		{"too many titles", func(i *ICPPersona) {
			for n := range 60 {
				i.Persona.JobTitles = append(i.Persona.JobTitles, "title "+itoa(n))
			}
		}, "persona.job_titles"},
		{"company too large", func(i *ICPPersona) { i.Company = map[string]any{"x": strings.Repeat("a", 20_000)} }, "company"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			icp := valid()
			tt.edit(&icp)
			err := icp.Validate()
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeValidation || e.Details[tt.field] == "" {
				t.Errorf("Validate = %v; want VALIDATION_FAILED naming %s", err, tt.field)
			}
		})
	}
}
