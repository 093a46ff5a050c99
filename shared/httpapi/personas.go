package httpapi

import (
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/audience"
)

// personaDTO is an ICP persona as the API answers it.
type personaDTO struct {
	ICPID          string         `json:"icpId"`
	OrganizationID string         `json:"organizationId"`
	CreatedBy      string         `json:"createdBy"`
	Persona        criteriaDTO    `json:"persona"`
	Company        map[string]any `json:"company"`
	Status         string         `json:"status"`
	CreatedAt      time.Time      `json:"createdAt"`
	UpdatedAt      time.Time      `json:"updatedAt"`
	Metadata       personaMetaDTO `json:"metadata"`
}

// criteriaDTO is a persona's persona object: the original interface's
// snake_case names.
type criteriaDTO struct {
	Name             string        `json:"name"`
	Description      string        `json:"description"`
	JobTitles        []string      `json:"job_titles"`
	Departments      []string      `json:"departments"`
	SeniorityLevels  []string      `json:"seniority_levels"`
	ContactLocations []locationDTO `json:"contact_locations"`
}

type locationDTO struct {
	Country string `json:"country"`
	Region  string `json:"region"`
}

type personaMetaDTO struct {
	Tags     []string `json:"tags"`
	Priority string   `json:"priority"`
}

func toPersonaDTO(p audience.Persona) personaDTO {
	c := p.Criteria
	return personaDTO{
		ICPID: p.ID, OrganizationID: p.OrganizationID, CreatedBy: p.CreatedBy,
		Persona: criteriaDTO{Name: c.Name, Description: c.Description, JobTitles: c.JobTitles, Departments: c.Departments,
			SeniorityLevels: c.SeniorityLevels, ContactLocations: mapAll(c.Locations, func(l audience.Location) locationDTO { return locationDTO(l) })},
		Company: p.Company, Status: p.Status, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, Metadata: personaMetaDTO(p.Meta),
	}
}

// criteria are the persona object's criteria as the slice holds them.
func (c criteriaDTO) criteria() audience.Criteria {
	return audience.Criteria{Name: c.Name, Description: c.Description, JobTitles: c.JobTitles, Departments: c.Departments,
		SeniorityLevels: c.SeniorityLevels, Locations: locations(c.ContactLocations)}
}

func locations(in []locationDTO) []audience.Location {
	return mapAll(in, func(l locationDTO) audience.Location { return audience.Location(l) })
}

// personaBody is the bare response of the ICP persona create and get.
type personaBody struct {
	ICPPersona personaDTO `json:"icpPersona"`
}

// personaInput is the body of POST /icp-personas.
type personaInput struct {
	Persona  criteriaDTO    `json:"persona"`
	Company  map[string]any `json:"company"`
	Status   string         `json:"status"`
	Metadata personaMetaDTO `json:"metadata"`
}

func (s *Server) createPersona(w http.ResponseWriter, r *http.Request) error {
	var in personaInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	p := principal(r.Context())
	icp, err := s.audiences.CreatePersona(r.Context(), p.OrgID, p.UserID, audience.Persona{
		Criteria: in.Persona.criteria(), Company: in.Company, Status: in.Status, Meta: audience.PersonaMeta(in.Metadata)})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, personaBody{ICPPersona: toPersonaDTO(icp)})
	return nil
}

func (s *Server) getPersona(w http.ResponseWriter, r *http.Request) error {
	icp, err := s.audiences.Persona(r.Context(), principal(r.Context()).OrgID, r.PathValue("icpId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, personaBody{ICPPersona: toPersonaDTO(icp)})
	return nil
}

func (s *Server) listPersonas(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	lq := listQuery(q, audience.PersonaSorts)
	f := audience.PersonaFilter{Status: q.enum("status", "", audience.PersonaStatuses...)}
	org := principal(r.Context()).OrgID
	binding := createdBinding(org, "icp-personas", lq)
	q.cursorPage(&lq.Page, binding, audience.PersonasInCreationOrder(f, lq))
	if err := q.err(); err != nil {
		return err
	}
	items, total, err := s.audiences.ListPersonas(r.Context(), org, f, lq)
	if err != nil {
		return err
	}
	writeList(w, "ICP personas retrieved", mapAll(items, toPersonaDTO), lq.Page, total, binding)
	return nil
}

// personaPatch is the body of PATCH /icp-personas/{id}: only sent fields
// change, inside persona and metadata too; a sent list or company object
// replaces the stored one.
type personaPatch struct {
	Persona *struct {
		Name             *string        `json:"name"`
		Description      *string        `json:"description"`
		JobTitles        *[]string      `json:"job_titles"`
		Departments      *[]string      `json:"departments"`
		SeniorityLevels  *[]string      `json:"seniority_levels"`
		ContactLocations *[]locationDTO `json:"contact_locations"`
	} `json:"persona"`
	Company  *map[string]any `json:"company"`
	Status   *string         `json:"status"`
	Metadata *struct {
		Tags     *[]string `json:"tags"`
		Priority *string   `json:"priority"`
	} `json:"metadata"`
}

// patch is the slice's patch of the fields sent.
func (in personaPatch) patch() audience.PersonaPatch {
	pp := audience.PersonaPatch{Company: in.Company, Status: in.Status}
	if p := in.Persona; p != nil {
		pp.Name, pp.Description, pp.JobTitles, pp.Departments, pp.SeniorityLevel = p.Name, p.Description, p.JobTitles, p.Departments, p.SeniorityLevels
		if p.ContactLocations != nil {
			ls := locations(*p.ContactLocations)
			pp.Locations = &ls
		}
	}
	if m := in.Metadata; m != nil {
		pp.Tags, pp.Priority = m.Tags, m.Priority
	}
	return pp
}

func (s *Server) updatePersona(w http.ResponseWriter, r *http.Request) error {
	var in personaPatch
	if err := decode(w, r, &in); err != nil {
		return err
	}
	icp, err := s.audiences.UpdatePersona(r.Context(), principal(r.Context()).OrgID, r.PathValue("icpId"), in.patch())
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "ICP persona updated", toPersonaDTO(icp))
	return nil
}

func (s *Server) deletePersona(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("icpId")
	if err := s.audiences.DeletePersona(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "ICP persona deleted", deleted("icpId", id))
	return nil
}
