package audience

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

func TestCheckPersona(t *testing.T) {
	valid := func() Persona {
		return Persona{Criteria: Criteria{Name: "Buyers", JobTitles: []string{" VP Sales ", "vp sales", ""},
			SeniorityLevels: []string{"Director"}, Locations: []Location{{Country: "US"}}}}
	}
	t.Run("ok with defaults", func(t *testing.T) {
		icp := valid()
		if err := CheckPersona(&icp); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(icp.Criteria.JobTitles, []string{"VP Sales"}) || icp.Status != "active" ||
			icp.Meta.Priority != "medium" || icp.Company == nil || icp.Criteria.Departments == nil {
			t.Errorf("normalized persona = %+v", icp)
		}
	})
	for _, tt := range []struct {
		name  string
		edit  func(*Persona)
		field string
	}{
		{"no name", func(i *Persona) { i.Criteria.Name = " " }, "persona.name"},
		{"unknown seniority", func(i *Persona) { i.Criteria.SeniorityLevels = []string{"overlord"} }, "persona.seniority_levels"},
		{"empty location", func(i *Persona) { i.Criteria.Locations = []Location{{}} }, "persona.contact_locations[0]"},
		{"title without words", func(i *Persona) { i.Criteria.JobTitles = []string{"&&"} }, "persona.job_titles"},
		{"unknown priority", func(i *Persona) { i.Meta.Priority = "urgent" }, "metadata.priority"},
		{"unknown status", func(i *Persona) { i.Status = "deleted" }, "status"},
		{"too many titles", func(i *Persona) {
			for n := range 60 {
				i.Criteria.JobTitles = append(i.Criteria.JobTitles, "title "+itoa(n))
			}
		}, "persona.job_titles"},
		{"company too large", func(i *Persona) { i.Company = map[string]any{"x": strings.Repeat("a", 20_000)} }, "company"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			icp := valid()
			tt.edit(&icp)
			err := CheckPersona(&icp)
			var e *gifting.Error
			if !errors.As(err, &e) || e.Code != gifting.CodeValidation || e.Details[tt.field] == "" {
				t.Errorf("CheckPersona = %v; want VALIDATION_FAILED naming %s", err, tt.field)
			}
		})
	}
}

// TestPersonaPatch: a patch changes only the fields it sets, inside the
// criteria and the metadata too, and the result is checked as a new
// persona is.
func TestPersonaPatch(t *testing.T) {
	base := func() Persona {
		return Persona{Criteria: Criteria{Name: "Buyers", Description: "old", JobTitles: []string{"VP Sales"}},
			Status: "active", Company: map[string]any{"size": "big"}, Meta: PersonaMeta{Tags: []string{"t"}, Priority: "high"}}
	}
	desc, status := " new ", "inactive"
	p := base()
	if err := (PersonaPatch{Description: &desc, Status: &status}).Apply(&p); err != nil {
		t.Fatal(err)
	}
	if p.Criteria.Description != "new" || p.Status != "inactive" || p.Criteria.Name != "Buyers" || !slices.Equal(p.Criteria.JobTitles, []string{"VP Sales"}) ||
		p.Meta.Priority != "high" || p.Company["size"] != "big" {
		t.Errorf("patched = %+v", p)
	}
	locations := []Location{{Country: " US "}}
	p = base()
	if err := (PersonaPatch{Locations: &locations}).Apply(&p); err != nil || len(p.Criteria.Locations) != 1 || p.Criteria.Locations[0].Country != "US" {
		t.Errorf("locations patched = %+v, %v", p.Criteria.Locations, err)
	}
	blank := " "
	p = base()
	if err := (PersonaPatch{Name: &blank}).Apply(&p); gifting.ErrorCode(err) != gifting.CodeValidation {
		t.Errorf("blank name: %v; want VALIDATION_FAILED", err)
	}
}

// TestAudiencePatch: an audience's patch changes its name, description and
// tags only as sent, checked as at creation.
func TestAudiencePatch(t *testing.T) {
	a := Audience{Name: "Eng", ICPID: "p1", Description: "d", Tags: []string{"x"}}
	name, tags := " Engineers ", []string{" q4 ", "Q4", ""}
	if err := (Patch{Name: &name, Tags: &tags}).Apply(&a); err != nil {
		t.Fatal(err)
	}
	if a.Name != "Engineers" || a.Description != "d" || !slices.Equal(a.Tags, []string{"q4"}) || a.ICPID != "p1" {
		t.Errorf("patched = %+v", a)
	}
	long := strings.Repeat("n", 201)
	if err := (Patch{Name: &long}).Apply(&a); gifting.ErrorCode(err) != gifting.CodeValidation {
		t.Errorf("a name of 201 characters: %v; want VALIDATION_FAILED", err)
	}
}
