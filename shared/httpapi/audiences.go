package httpapi

import (
	"net/http"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

func (s *Server) audienceRoutes() []route {
	return []route{
		{pattern: "GET /api/campaigns/icp-personas", handle: s.listPersonas},
		{pattern: "POST /api/campaigns/icp-personas", handle: s.createPersona},
		{pattern: "GET /api/campaigns/icp-personas/{icpId}", handle: s.getPersona},
		{pattern: "PATCH /api/campaigns/icp-personas/{icpId}", handle: s.updatePersona},
		{pattern: "DELETE /api/campaigns/icp-personas/{icpId}", handle: s.deletePersona},
		{pattern: "GET /api/campaigns/audience-lists", handle: s.listAudiences},
		{pattern: "POST /api/campaigns/audience-lists", handle: s.createAudience},
		{pattern: "GET /api/campaigns/audience-lists/{audienceId}", handle: s.getAudience},
		{pattern: "PATCH /api/campaigns/audience-lists/{audienceId}", handle: s.updateAudience},
		{pattern: "DELETE /api/campaigns/audience-lists/{audienceId}", handle: s.deleteAudience},
		{pattern: "POST /api/campaigns/audience-lists/{audienceId}/rebuild", handle: s.rebuildAudience},
		{pattern: "GET /api/campaigns/audience-lists/{audienceId}/contacts", handle: s.listAudienceContacts},
		{pattern: "POST /api/campaigns/audience-lists/{audienceId}/contact-list", handle: s.audienceToContactList},
	}
}

// personaBody is the bare response of the ICP persona endpoints.
type personaBody struct {
	ICPPersona gifting.ICPPersona `json:"icpPersona"`
}

// personaInput is the body of POST /icp-personas.
type personaInput struct {
	Persona  gifting.Persona         `json:"persona"`
	Company  map[string]any          `json:"company"`
	Status   string                  `json:"status"`
	Metadata gifting.PersonaMetadata `json:"metadata"`
}

func (s *Server) createPersona(w http.ResponseWriter, r *http.Request) error {
	var in personaInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	icp := gifting.ICPPersona{Persona: in.Persona, Company: in.Company, Status: in.Status, Metadata: in.Metadata}
	if err := icp.Validate(); err != nil {
		return err
	}
	p := principal(r.Context())
	icp, err := s.store.CreatePersona(r.Context(), p.OrgID, p.UserID, icp)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, personaBody{ICPPersona: icp})
	return nil
}

func (s *Server) getPersona(w http.ResponseWriter, r *http.Request) error {
	icp, err := s.store.Persona(r.Context(), principal(r.Context()).OrgID, r.PathValue("icpId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, personaBody{ICPPersona: icp})
	return nil
}

// maxCreditsPerContact bounds the stated price of one gift.
const maxCreditsPerContact = gifting.MaxCreditsPerContact

// audienceInput is the body of POST /audience-lists. creditsPerContact or
// giftId (not both) state the price creditRequired is computed at; without
// either it is the cheapest available gift.
type audienceInput struct {
	Name              string   `json:"name"`
	ICPID             string   `json:"icpId"`
	Description       string   `json:"description"`
	Tags              []string `json:"tags"`
	CreditsPerContact *int64   `json:"creditsPerContact"`
	GiftID            string   `json:"giftId"`
}

func (s *Server) createAudience(w http.ResponseWriter, r *http.Request) error {
	var in audienceInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	var p gifting.Problems
	if c := in.CreditsPerContact; c != nil && (*c < 0 || *c > maxCreditsPerContact) {
		p.Add("creditsPerContact", "must be between 0 and 1000000")
	}
	in.GiftID = strings.TrimSpace(in.GiftID)
	if in.CreditsPerContact != nil && in.GiftID != "" {
		p.Add("giftId", "give creditsPerContact or giftId, not both")
	}
	a := gifting.AudienceList{Name: in.Name, ICPID: in.ICPID, Description: in.Description, Tags: in.Tags}
	if err := gifting.MergeProblems(p, gifting.ValidateAudience(&a)); err != nil {
		return err
	}
	pr := principal(r.Context())
	a, err := s.svc.CreateAudience(r.Context(), pr.OrgID, pr.UserID, a, gifting.AudiencePrice{CreditsPerContact: in.CreditsPerContact, GiftID: in.GiftID})
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Audience list created; it is being built", a)
	return nil
}

func (s *Server) getAudience(w http.ResponseWriter, r *http.Request) error {
	a, err := s.store.Audience(r.Context(), principal(r.Context()).OrgID, r.PathValue("audienceId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Audience list retrieved", a)
	return nil
}

// audiencePagination is the pagination object of the audience contacts
// endpoint: the original interface gives it exactly these four fields.
type audiencePagination struct {
	Page       int `json:"page"`
	Limit      int `json:"limit"`
	Total      int `json:"total"`
	TotalPages int `json:"totalPages"`
}

// audienceContacts is the data of GET /audience-lists/{id}/contacts.
type audienceContacts struct {
	Audience   gifting.AudienceList     `json:"audience"`
	Items      []gifting.AudienceMember `json:"items"`
	Pagination audiencePagination       `json:"pagination"`
}

func (s *Server) listAudienceContacts(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	mq := gifting.MemberQuery{
		Page:   q.page(12),
		Search: q.search(maxSearch),
		SortBy: q.enum("sortBy", "createdAt", gifting.AudienceMemberSorts...),
		Order:  q.sortOrder(gifting.Desc),
	}
	if err := q.err(); err != nil {
		return err
	}
	orgID := principal(r.Context()).OrgID
	a, items, total, err := s.store.AudienceMembers(r.Context(), orgID, r.PathValue("audienceId"), mq)
	if err != nil {
		return err
	}
	p := gifting.NewPagination(mq.Page, total)
	writeEnvelope(w, http.StatusOK, "Audience contacts retrieved", audienceContacts{
		Audience: a, Items: items,
		Pagination: audiencePagination{Page: p.Page, Limit: p.Limit, Total: p.Total, TotalPages: p.TotalPages},
	})
	return nil
}

// contactListInput is the body of POST /audience-lists/{id}/contact-list;
// both fields are optional (the audience's name and a description naming
// it by default).
type contactListInput struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// contactListStarted is the data of POST /audience-lists/{id}/contact-list.
type contactListStarted struct {
	ListID      string               `json:"listId"`
	AudienceID  string               `json:"audienceId"`
	ContactList gifting.ContactList  `json:"contactList"`
	Progress    gifting.ListProgress `json:"progress"`
}

func (s *Server) audienceToContactList(w http.ResponseWriter, r *http.Request) error {
	var in contactListInput
	if r.ContentLength != 0 {
		if err := decode(w, r, &in); err != nil {
			return err
		}
	}
	pr := principal(r.Context())
	a, l, err := s.svc.AudienceToContactList(r.Context(), pr.OrgID, pr.UserID, r.PathValue("audienceId"),
		in.Name, in.Description)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusAccepted, "Contact list created; the audience's contacts are being added", contactListStarted{
		ListID: l.ListID, AudienceID: a.AudienceID, ContactList: l, Progress: gifting.ListProgress{Status: gifting.ListAdding},
	})
	return nil
}

// listData is the data of the persona, audience and event lists.
type listData[T any] struct {
	Items      []T                `json:"items"`
	Pagination gifting.Pagination `json:"pagination"`
}

// listQuery parses search, sortBy (one of sorts, default createdAt),
// sortOrder (default desc) and the page (default limit 12).
func listQuery(q *query, sorts []string) gifting.ListQuery {
	return gifting.ListQuery{
		Page:   q.page(12),
		Search: q.search(maxSearch),
		SortBy: q.enum("sortBy", gifting.SortCreatedAt, sorts...),
		Order:  q.sortOrder(gifting.Desc),
	}
}

// writeList writes a page of a list in the enveloped style.
func writeList[T any](w http.ResponseWriter, message string, items []T, page gifting.PageRequest, total int) {
	if items == nil {
		items = []T{}
	}
	writeEnvelope(w, http.StatusOK, message, listData[T]{Items: items, Pagination: gifting.NewPagination(page, total)})
}

// deleted is the data of a DELETE's response: the id under the resource's
// own name, and isDeleted.
func deleted(idField, id string) map[string]any {
	return map[string]any{idField: id, "isDeleted": true}
}

func (s *Server) listAudiences(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	lq := listQuery(q, gifting.AudienceSorts)
	f := gifting.AudienceFilter{
		Status: gifting.AudienceStatus(q.enum("status", "", gifting.AudienceStatuses...)),
		ICPID:  q.filter("icpId"),
	}
	if err := q.err(); err != nil {
		return err
	}
	items, total, err := s.store.ListAudiences(r.Context(), principal(r.Context()).OrgID, f, lq)
	if err != nil {
		return err
	}
	writeList(w, "Audience lists retrieved", items, lq.Page, total)
	return nil
}

// audiencePatch is the body of PATCH /audience-lists/{id}: only sent
// fields change. The persona and the price are fixed at creation (an
// audience is a snapshot of one match); they are unknown fields here.
type audiencePatch struct {
	Name        *string   `json:"name"`
	Description *string   `json:"description"`
	Tags        *[]string `json:"tags"`
}

func (s *Server) updateAudience(w http.ResponseWriter, r *http.Request) error {
	var in audiencePatch
	if err := decode(w, r, &in); err != nil {
		return err
	}
	a, err := s.store.UpdateAudience(r.Context(), principal(r.Context()).OrgID, r.PathValue("audienceId"), func(a *gifting.AudienceList) error {
		setIf(&a.Name, in.Name)
		setIf(&a.Description, in.Description)
		setIf(&a.Tags, in.Tags)
		return gifting.ValidateAudience(a)
	})
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Audience list updated", a)
	return nil
}

// setIf sets *dst to *v when the field was sent.
func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func (s *Server) deleteAudience(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("audienceId")
	if err := s.svc.RemoveAudience(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Audience list deleted; its contacts are being removed", deleted("audienceId", id))
	return nil
}

func (s *Server) rebuildAudience(w http.ResponseWriter, r *http.Request) error {
	a, err := s.svc.RebuildAudience(r.Context(), principal(r.Context()).OrgID, r.PathValue("audienceId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusAccepted, "Audience list is being rebuilt", a)
	return nil
}
