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
