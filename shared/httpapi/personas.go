package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/gifting"
)

func (s *Server) listPersonas(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	lq := listQuery(q, gifting.PersonaSorts)
	f := gifting.PersonaFilter{Status: q.enum("status", "", gifting.PersonaStatuses...)}
	if err := q.err(); err != nil {
		return err
	}
	items, total, err := s.store.ListPersonas(r.Context(), principal(r.Context()).OrgID, f, lq)
	if err != nil {
		return err
	}
	writeList(w, "ICP personas retrieved", items, lq.Page, total)
	return nil
}

// personaPatch is the body of PATCH /icp-personas/{id}: only sent fields
// change, inside persona and metadata too; a sent list or company object
// replaces the stored one.
type personaPatch struct {
	Persona *struct {
		Name             *string                    `json:"name"`
		Description      *string                    `json:"description"`
		JobTitles        *[]string                  `json:"job_titles"`
		Departments      *[]string                  `json:"departments"`
		SeniorityLevels  *[]string                  `json:"seniority_levels"`
		ContactLocations *[]gifting.ContactLocation `json:"contact_locations"`
	} `json:"persona"`
	Company  *map[string]any `json:"company"`
	Status   *string         `json:"status"`
	Metadata *struct {
		Tags     *[]string `json:"tags"`
		Priority *string   `json:"priority"`
	} `json:"metadata"`
}

// apply sets the sent fields on icp and validates the result as a create
// would.
func (in personaPatch) apply(icp *gifting.ICPPersona) error {
	if p := in.Persona; p != nil {
		ps := &icp.Persona
		setIf(&ps.Name, p.Name)
		setIf(&ps.Description, p.Description)
		setIf(&ps.JobTitles, p.JobTitles)
		setIf(&ps.Departments, p.Departments)
		setIf(&ps.SeniorityLevels, p.SeniorityLevels)
		setIf(&ps.ContactLocations, p.ContactLocations)
	}
	setIf(&icp.Company, in.Company)
	setIf(&icp.Status, in.Status)
	if m := in.Metadata; m != nil {
		setIf(&icp.Metadata.Tags, m.Tags)
		setIf(&icp.Metadata.Priority, m.Priority)
	}
	return icp.Validate()
}

func (s *Server) updatePersona(w http.ResponseWriter, r *http.Request) error {
	var in personaPatch
	if err := decode(w, r, &in); err != nil {
		return err
	}
	icp, err := s.store.UpdatePersona(r.Context(), principal(r.Context()).OrgID, r.PathValue("icpId"), in.apply)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "ICP persona updated", icp)
	return nil
}

func (s *Server) deletePersona(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("icpId")
	if err := s.store.DeletePersona(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "ICP persona deleted", deleted("icpId", id))
	return nil
}
