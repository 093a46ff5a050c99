package audience

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// Limits of a persona's and an audience's fields.
const (
	maxCriteria     = gifting.MaxListEntries
	maxCriterionLen = gifting.MaxListEntryLength
	maxCompanyJSON  = 16 << 10
	maxCompanyDepth = 8
	maxDescription  = 2000
	maxTitle        = 200
)

func itoa(i int) string { return strconv.Itoa(i) }

// CheckPersona normalizes a new or patched persona in place (trims, drops
// blank and repeated criteria, fills the defaults) and reports every
// problem by its JSON field name: VALIDATION_FAILED.
func CheckPersona(p *Persona) error {
	var pr gifting.Problems
	checkCriteria(&pr, &p.Criteria)
	if p.Status = strings.TrimSpace(p.Status); p.Status == "" {
		p.Status = defaultPersonaStatus
	} else if !slices.Contains(PersonaStatuses, p.Status) {
		pr.Add("status", "must be one of "+strings.Join(PersonaStatuses, ", "))
	}
	m := &p.Meta
	if m.Priority = strings.TrimSpace(m.Priority); m.Priority == "" {
		m.Priority = defaultPriority
	} else if !slices.Contains(PersonaPriorities, m.Priority) {
		pr.Add("metadata.priority", "must be one of "+strings.Join(PersonaPriorities, ", "))
	}
	m.Tags = gifting.CleanStrings(&pr, "metadata.tags", m.Tags, maxCriteria, maxCriterionLen)
	if p.Company == nil {
		p.Company = map[string]any{}
	}
	if b, err := json.Marshal(p.Company); err != nil || len(b) > maxCompanyJSON {
		pr.Add("company", "must be an object of at most "+itoa(maxCompanyJSON)+" bytes of JSON")
	} else if depth(p.Company) > maxCompanyDepth {
		pr.Add("company", "must nest at most "+itoa(maxCompanyDepth)+" levels deep")
	} else if at, found := emptyKey(p.Company, "company"); found {
		// DynamoDB cannot store an attribute without a name.
		pr.Add("company", "keys must not be empty; "+at+" has an empty key")
	}
	return pr.Err()
}

// checkCriteria normalizes and checks the persona object of a persona.
func checkCriteria(p *gifting.Problems, c *Criteria) {
	c.Name, c.Description = strings.TrimSpace(c.Name), strings.TrimSpace(c.Description)
	switch {
	case c.Name == "":
		p.Add("persona.name", "is required")
	case gifting.TooLong(c.Name, maxTitle):
		p.Add("persona.name", "must be at most "+itoa(maxTitle)+" characters")
	}
	p.AtMost("persona.description", c.Description, maxDescription)
	c.JobTitles = gifting.CleanStrings(p, "persona.job_titles", c.JobTitles, maxCriteria, maxCriterionLen)
	c.Departments = gifting.CleanStrings(p, "persona.departments", c.Departments, maxCriteria, maxCriterionLen)
	c.SeniorityLevels = gifting.CleanStrings(p, "persona.seniority_levels", c.SeniorityLevels, maxCriteria, maxCriterionLen)
	for _, s := range c.SeniorityLevels {
		if _, ok := SeniorityLevel(s); !ok {
			p.Add("persona.seniority_levels", "\""+s+"\" is not a seniority level; use "+strings.Join(SeniorityLevels, ", "))
		}
	}
	for i, t := range c.JobTitles {
		if len(words(t)) == 0 {
			p.Add("persona.job_titles", "entry "+itoa(i)+" has no letters or digits")
		}
	}
	for i, d := range c.Departments {
		if len(words(d)) == 0 {
			p.Add("persona.departments", "entry "+itoa(i)+" has no letters or digits")
		}
	}
	if len(c.Locations) > maxCriteria {
		p.Add("persona.contact_locations", "must hold at most "+itoa(maxCriteria)+" entries")
	}
	for i := range c.Locations {
		l := &c.Locations[i]
		l.Country, l.Region = strings.TrimSpace(l.Country), strings.TrimSpace(l.Region)
		field := "persona.contact_locations[" + itoa(i) + "]"
		if len(rawWords(l.Country)) == 0 && len(rawWords(l.Region)) == 0 {
			p.Add(field, "needs a country, a region or both")
		}
		if gifting.TooLong(l.Country, maxCriterionLen) || gifting.TooLong(l.Region, maxCriterionLen) {
			p.Add(field, "country and region must be at most "+itoa(maxCriterionLen)+" characters")
		}
	}
	if c.Locations == nil {
		c.Locations = []Location{}
	}
}

// emptyKey finds an object with an empty key in v, at any depth, and
// returns where it is (at names v).
func emptyKey(v any, at string) (where string, found bool) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x[""]; ok {
			return at, true
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if where, found := emptyKey(x[k], at+"."+k); found {
				return where, true
			}
		}
	case []any:
		for i, e := range x {
			if where, found := emptyKey(e, at+"["+itoa(i)+"]"); found {
				return where, true
			}
		}
	}
	return "", false
}

// depth is how deeply v nests objects and arrays.
func depth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	case []any:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

// PersonaPatch is a change to a persona: only the fields set (non-nil)
// change, inside the criteria and the metadata too; a list or a company
// object set replaces the stored one.
type PersonaPatch struct {
	Name, Description                      *string
	JobTitles, Departments, SeniorityLevel *[]string
	Locations                              *[]Location
	Company                                *map[string]any
	Status                                 *string
	Tags                                   *[]string
	Priority                               *string
}

// Apply sets the patch's fields on p and checks the result as a new
// persona is checked (CheckPersona).
func (pp PersonaPatch) Apply(p *Persona) error {
	c := &p.Criteria
	setIf(&c.Name, pp.Name)
	setIf(&c.Description, pp.Description)
	setIf(&c.JobTitles, pp.JobTitles)
	setIf(&c.Departments, pp.Departments)
	setIf(&c.SeniorityLevels, pp.SeniorityLevel)
	setIf(&c.Locations, pp.Locations)
	setIf(&p.Company, pp.Company)
	setIf(&p.Status, pp.Status)
	setIf(&p.Meta.Tags, pp.Tags)
	setIf(&p.Meta.Priority, pp.Priority)
	return CheckPersona(p)
}

// setIf sets *dst to *v when v is set.
func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// CheckAudience normalizes and checks the fields a caller sets on an
// audience (name, persona, description, tags): VALIDATION_FAILED naming
// each.
func CheckAudience(a *Audience) error {
	var p gifting.Problems
	checkAudience(&p, a)
	return p.Err()
}

func checkAudience(p *gifting.Problems, a *Audience) {
	a.Name, a.Description, a.ICPID = strings.TrimSpace(a.Name), strings.TrimSpace(a.Description), strings.TrimSpace(a.ICPID)
	switch {
	case a.Name == "":
		p.Add("name", "is required")
	case gifting.TooLong(a.Name, maxTitle):
		p.Add("name", "must be at most "+itoa(maxTitle)+" characters")
	}
	if a.ICPID == "" {
		p.Add("icpId", "is required")
	}
	p.AtMost("description", a.Description, maxDescription)
	a.Tags = gifting.CleanStrings(p, "tags", a.Tags, maxCriteria, maxCriterionLen)
}

// Patch is a change to an audience: only the fields set change. Its
// persona and price are fixed at creation (an audience is a snapshot of
// one match).
type Patch struct {
	Name, Description *string
	Tags              *[]string
}

// Apply sets the patch's fields on a and checks the result (CheckAudience).
func (pt Patch) Apply(a *Audience) error {
	setIf(&a.Name, pt.Name)
	setIf(&a.Description, pt.Description)
	setIf(&a.Tags, pt.Tags)
	return CheckAudience(a)
}
