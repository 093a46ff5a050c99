package httpapi

import (
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wire"
)

func (s *Server) audienceRoutes() []route {
	return []route{
		{pattern: "GET /api/campaigns/icp-personas", handle: s.listPersonas},
		{pattern: "POST /api/campaigns/icp-personas", handle: s.createPersona},
		{pattern: "GET /api/campaigns/icp-personas/{icpId}", handle: s.getPersona},
		{pattern: "PATCH /api/campaigns/icp-personas/{icpId}", handle: s.updatePersona},
		{pattern: "DELETE /api/campaigns/icp-personas/{icpId}", handle: s.deletePersona},
		{pattern: "GET /api/campaigns/audience-lists", handle: s.listAudiences},
		{pattern: "POST /api/campaigns/audience-lists", handle: s.createAudience, rate: gifting.RateAudienceBuild},
		{pattern: "GET /api/campaigns/audience-lists/{audienceId}", handle: s.getAudience},
		{pattern: "PATCH /api/campaigns/audience-lists/{audienceId}", handle: s.updateAudience},
		{pattern: "DELETE /api/campaigns/audience-lists/{audienceId}", handle: s.deleteAudience},
		{pattern: "POST /api/campaigns/audience-lists/{audienceId}/rebuild", handle: s.rebuildAudience, rate: gifting.RateAudienceBuild},
		{pattern: "GET /api/campaigns/audience-lists/{audienceId}/contacts", handle: s.listAudienceContacts},
		{pattern: "POST /api/campaigns/audience-lists/{audienceId}/contact-list", handle: s.audienceToContactList, rate: gifting.RateAudienceBuild},
	}
}

// An audience answers as wire.Audience, the shape its audience.ready and
// audience.failed messages carry too.

// memberDTO is a member of an audience as the audience contacts endpoint
// lists it.
type memberDTO struct {
	AudienceID  string       `json:"audienceId"`
	ContactID   string       `json:"contactId"`
	MailID      string       `json:"mailId"`
	FirstName   string       `json:"firstName"`
	LastName    string       `json:"lastName"`
	FullName    string       `json:"fullName"`
	JobTitle    string       `json:"jobTitle"`
	CompanyName string       `json:"companyName"`
	City        string       `json:"city"`
	State       string       `json:"state"`
	Country     string       `json:"country"`
	Seniority   string       `json:"seniority"`
	Departments []string     `json:"departments"`
	MatchedOn   matchedOnDTO `json:"matchedOn"`
	CreatedAt   time.Time    `json:"createdAt"`
	UpdatedAt   time.Time    `json:"updatedAt"`
	MatchedAt   time.Time    `json:"matchedAt"`
}

// matchedOnDTO says which of the persona's values a member matched.
type matchedOnDTO struct {
	JobTitle   string `json:"jobTitle,omitempty"`
	Department string `json:"department,omitempty"`
	Seniority  string `json:"seniority,omitempty"`
	Location   string `json:"location,omitempty"`
}

func toMemberDTO(m audience.Member) memberDTO {
	return memberDTO{
		AudienceID: m.AudienceID, ContactID: m.ContactID, MailID: m.MailID, FirstName: m.FirstName,
		LastName: m.LastName, FullName: m.FullName, JobTitle: m.JobTitle, CompanyName: m.CompanyName,
		City: m.City, State: m.State, Country: m.Country, Seniority: m.Seniority, Departments: m.Departments,
		MatchedOn: matchedOnDTO(m.MatchedOn), CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt, MatchedAt: m.MatchedAt,
	}
}

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
	pr := principal(r.Context())
	a, err := s.audiences.Create(r.Context(), pr.OrgID, pr.UserID,
		audience.Audience{Name: in.Name, ICPID: in.ICPID, Description: in.Description, Tags: in.Tags},
		audience.Price{CreditsPerContact: in.CreditsPerContact, GiftID: in.GiftID})
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Audience list created; it is being built", wire.AudienceOf(a))
	return nil
}

func (s *Server) getAudience(w http.ResponseWriter, r *http.Request) error {
	a, err := s.audiences.Get(r.Context(), principal(r.Context()).OrgID, r.PathValue("audienceId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Audience list retrieved", wire.AudienceOf(a))
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
	Audience   wire.Audience      `json:"audience"`
	Items      []memberDTO        `json:"items"`
	Pagination audiencePagination `json:"pagination"`
	// NextCursor starts the next page in the createdAt order ("" on the
	// last page, and for a search or another sort: cursor.go).
	NextCursor string `json:"nextCursor"`
}

func (s *Server) listAudienceContacts(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	mq := audience.MemberQuery{
		Page:   q.page(12),
		Search: q.search(maxSearch),
		SortBy: q.enum("sortBy", "createdAt", audience.MemberSorts...),
		Order:  q.sortOrder(gifting.Desc),
	}
	org, id := principal(r.Context()).OrgID, r.PathValue("audienceId")
	binding := gifting.Binding(org, "audience-contacts", id, string(mq.Order))
	q.cursorPage(&mq.Page, binding, mq.Read() == audience.ReadByCreatedAt)
	if err := q.err(); err != nil {
		return err
	}
	a, members, total, err := s.audiences.Members(r.Context(), org, id, mq)
	if err != nil {
		return err
	}
	items := mapAll(members, toMemberDTO)
	if items == nil {
		items = []memberDTO{}
	}
	p := gifting.NewPagination(mq.Page, total)
	writeEnvelope(w, http.StatusOK, "Audience contacts retrieved", audienceContacts{
		Audience: wire.AudienceOf(a), Items: items,
		Pagination: audiencePagination{Page: p.Page, Limit: p.Limit, Total: p.Total, TotalPages: p.TotalPages},
		NextCursor: nextCursor(mq.Page, binding),
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
	ListID      string              `json:"listId"`
	AudienceID  string              `json:"audienceId"`
	ContactList gifting.ContactList `json:"contactList"`
	Progress    wire.ListProgress   `json:"progress"`
}

func (s *Server) audienceToContactList(w http.ResponseWriter, r *http.Request) error {
	var in contactListInput
	if r.ContentLength != 0 {
		if err := decode(w, r, &in); err != nil {
			return err
		}
	}
	pr := principal(r.Context())
	a, l, err := s.audiences.ToContactList(r.Context(), pr.OrgID, pr.UserID, r.PathValue("audienceId"), in.Name, in.Description)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusAccepted, "Contact list created; the audience's contacts are being added", contactListStarted{
		ListID: l.ListID, AudienceID: a.ID, ContactList: l, Progress: wire.ListProgress(audience.CopyStarted()),
	})
	return nil
}

func (s *Server) listAudiences(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	lq := listQuery(q, audience.Sorts)
	f := audience.Filter{
		Status: audience.Status(q.enum("status", "", audience.Statuses...)),
		ICPID:  q.filter("icpId"),
	}
	org := principal(r.Context()).OrgID
	binding := createdBinding(org, "audience-lists", lq)
	q.cursorPage(&lq.Page, binding, audience.InCreationOrder(f, lq))
	if err := q.err(); err != nil {
		return err
	}
	items, total, err := s.audiences.List(r.Context(), org, f, lq)
	if err != nil {
		return err
	}
	writeList(w, "Audience lists retrieved", mapAll(items, wire.AudienceOf), lq.Page, total, binding)
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
	a, err := s.audiences.Update(r.Context(), principal(r.Context()).OrgID, r.PathValue("audienceId"), audience.Patch(in))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Audience list updated", wire.AudienceOf(a))
	return nil
}

func (s *Server) deleteAudience(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("audienceId")
	if err := s.audiences.Delete(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Audience list deleted; its contacts are being removed", deleted("audienceId", id))
	return nil
}

func (s *Server) rebuildAudience(w http.ResponseWriter, r *http.Request) error {
	a, err := s.audiences.Rebuild(r.Context(), principal(r.Context()).OrgID, r.PathValue("audienceId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusAccepted, "Audience list is being rebuilt", wire.AudienceOf(a))
	return nil
}
