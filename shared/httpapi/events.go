package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/gifting"
)

func (s *Server) eventRoutes() []route {
	return []route{
		{pattern: "GET /api/campaigns/events", handle: s.listEvents},
		{pattern: "POST /api/campaigns/events", handle: s.createEvent},
		{pattern: "GET /api/campaigns/events/{id}", handle: s.getEvent},
		{pattern: "PATCH /api/campaigns/events/{id}", handle: s.updateEvent},
		{pattern: "DELETE /api/campaigns/events/{id}", handle: s.deleteEvent},
		{pattern: "POST /api/campaigns/events/{id}/campaigns", handle: s.linkEventCampaigns},
		{pattern: "DELETE /api/campaigns/events/{id}/campaigns/{campaignId}", handle: s.unlinkEventCampaign},
	}
}

// eventDTO is an event as the API answers it (the OpenAPI schema Event):
// every field always present, optional strings "" and lists [] when not
// set.
type eventDTO struct {
	ID                string           `json:"id"`
	Name              string           `json:"name"`
	Type              string           `json:"type"`
	Status            string           `json:"status"`
	Visibility        string           `json:"visibility"`
	OrganizationID    string           `json:"organizationId"`
	CreatorUserID     string           `json:"creatorUserId"`
	EventDates        eventDatesDTO    `json:"eventDates"`
	Location          eventLocationDTO `json:"location"`
	Description       string           `json:"description"`
	Host              string           `json:"host"`
	Agenda            string           `json:"agenda"`
	Focus             string           `json:"focus"`
	EventURL          string           `json:"eventUrl"`
	Banner            string           `json:"banner"`
	Hashtag           string           `json:"hashtag"`
	Topics            []string         `json:"topics"`
	TargetAudience    []string         `json:"targetAudience"`
	TargetAccounts    []string         `json:"targetAccounts"`
	LinkedCampaigns   []string         `json:"linkedCampaigns"`
	Tags              []string         `json:"tags"`
	Speakers          []speakerDTO     `json:"speakers"`
	ExpectedAttendees int              `json:"expectedAttendees"`
	CreatedAt         time.Time        `json:"createdAt"`
	UpdatedAt         time.Time        `json:"updatedAt"`
	Version           int              `json:"version"`
}

type eventDatesDTO struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

type eventLocationDTO struct {
	Type      string `json:"type"`
	Address   string `json:"address"`
	OnlineURL string `json:"onlineUrl"`
	VenueName string `json:"venueName"`
}

type speakerDTO struct {
	FullName string `json:"fullName"`
	Role     string `json:"role"`
	Company  string `json:"company"`
	PhotoURL string `json:"photoUrl"`
	Bio      string `json:"bio"`
}

func toEventDTO(e event.Event) eventDTO {
	return eventDTO{
		ID: e.ID, Name: e.Name, Type: e.Type, Status: e.Status, Visibility: e.Visibility,
		OrganizationID: e.OrganizationID, CreatorUserID: e.CreatorUserID,
		EventDates: eventDatesDTO(e.EventDates), Location: eventLocationDTO(e.Location),
		Description: e.Description, Host: e.Host, Agenda: e.Agenda, Focus: e.Focus,
		EventURL: e.EventURL, Banner: e.Banner, Hashtag: e.Hashtag,
		Topics: e.Topics, TargetAudience: e.TargetAudience, TargetAccounts: e.TargetAccounts,
		LinkedCampaigns: e.LinkedCampaigns, Tags: e.Tags, Speakers: mapAll(e.Speakers, toSpeakerDTO),
		ExpectedAttendees: e.ExpectedAttendees, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, Version: e.Version,
	}
}

func toSpeakerDTO(s event.Speaker) speakerDTO { return speakerDTO(s) }
func speakerOf(s speakerDTO) event.Speaker    { return event.Speaker(s) }

// mapAll maps in through f, keeping nil as nil, so a list the caller left
// out stays unset and one it sent empty stays empty.
func mapAll[A, B any](in []A, f func(A) B) []B {
	if in == nil {
		return nil
	}
	out := make([]B, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// eventBody is the bare response of GET /events/{id}.
type eventBody struct {
	Event eventDTO `json:"event"`
}

func (s *Server) getEvent(w http.ResponseWriter, r *http.Request) error {
	e, err := s.events.Get(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, eventBody{Event: toEventDTO(e)})
	return nil
}

// eventInput is the body of POST /events: the Event fields a caller sets.
// Dates are read as text so a bad one is reported by field.
type eventInput struct {
	Name              string           `json:"name"`
	Type              string           `json:"type"`
	Status            string           `json:"status"`
	Visibility        string           `json:"visibility"`
	EventDates        *eventDatesInput `json:"eventDates"`
	Location          eventLocationDTO `json:"location"`
	Description       string           `json:"description"`
	Host              string           `json:"host"`
	Agenda            string           `json:"agenda"`
	Focus             string           `json:"focus"`
	EventURL          string           `json:"eventUrl"`
	Banner            string           `json:"banner"`
	Hashtag           string           `json:"hashtag"`
	Topics            []string         `json:"topics"`
	TargetAudience    []string         `json:"targetAudience"`
	TargetAccounts    []string         `json:"targetAccounts"`
	LinkedCampaigns   []string         `json:"linkedCampaigns"`
	Tags              []string         `json:"tags"`
	Speakers          []speakerDTO     `json:"speakers"`
	ExpectedAttendees int              `json:"expectedAttendees"`
}

type eventDatesInput struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

func (s *Server) createEvent(w http.ResponseWriter, r *http.Request) error {
	var in eventInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	var p gifting.Problems
	e := event.Event{
		Name: in.Name, Type: in.Type, Status: in.Status, Visibility: in.Visibility, Location: event.Location(in.Location),
		Description: in.Description, Host: in.Host, Agenda: in.Agenda, Focus: in.Focus, EventURL: in.EventURL,
		Banner: in.Banner, Hashtag: in.Hashtag, Topics: in.Topics, TargetAudience: in.TargetAudience,
		TargetAccounts: in.TargetAccounts, LinkedCampaigns: in.LinkedCampaigns, Tags: in.Tags,
		Speakers: mapAll(in.Speakers, speakerOf), ExpectedAttendees: in.ExpectedAttendees,
	}
	if in.EventDates != nil {
		e.EventDates.Start = parseDateTime(&p, "eventDates.start", in.EventDates.Start)
		e.EventDates.End = parseDateTime(&p, "eventDates.end", in.EventDates.End)
	}
	pr := principal(r.Context())
	e, err := s.events.Create(r.Context(), pr.OrgID, pr.UserID, e, p)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Event created", toEventDTO(e))
	return nil
}

// parseDateTime reads an ISO 8601 date-time (RFC 3339), or a date
// (midnight UTC). A bad value is recorded against field; an empty one is
// left to the resource's own validation (required or not).
func parseDateTime(p *gifting.Problems, field, s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	if t, ok := parseInstant(s); ok {
		return t
	}
	p.Add(field, "must be an ISO 8601 date-time such as 2026-05-04T09:00:00Z")
	return time.Time{}
}

// linkInput is the body of POST /events/{id}/campaigns.
type linkInput struct {
	CampaignIDs []string `json:"campaignIds"`
}

func (s *Server) linkEventCampaigns(w http.ResponseWriter, r *http.Request) error {
	var in linkInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	e, err := s.events.Link(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"), in.CampaignIDs)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaigns linked", toEventDTO(e))
	return nil
}

func (s *Server) unlinkEventCampaign(w http.ResponseWriter, r *http.Request) error {
	e, err := s.events.Unlink(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"), r.PathValue("campaignId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign unlinked", toEventDTO(e))
	return nil
}

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	lq := listQuery(q, event.Sorts)
	f := event.Filter{
		Status: q.enum("status", "", event.Statuses...),
		Type:   q.enum("type", "", event.Types...),
		From:   q.timestamp("from"),
		To:     q.timestamp("to"),
	}
	if f.To != nil && len(q.str("to")) == len("2006-01-02") {
		// A date alone means the whole of that day.
		end := f.To.Add(24*time.Hour - time.Millisecond)
		f.To = &end
	}
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		q.problems.Add("to", "must not be before from")
	}
	org := principal(r.Context()).OrgID
	binding := createdBinding(org, "events", lq)
	q.cursorPage(&lq.Page, binding, event.InCreationOrder(f, lq))
	if err := q.err(); err != nil {
		return err
	}
	items, total, err := s.events.List(r.Context(), org, f, lq)
	if err != nil {
		return err
	}
	writeList(w, "Events retrieved", mapAll(items, toEventDTO), lq.Page, total, binding)
	return nil
}

// eventPatch is the body of PATCH /events/{id}: only sent fields change.
// eventDates.start and .end change one by one; a sent location, list or
// speakers replaces the stored one. Links change through the link
// endpoints, so linkedCampaigns is not a field here.
type eventPatch struct {
	Name              *string           `json:"name"`
	Type              *string           `json:"type"`
	Status            *string           `json:"status"`
	Visibility        *string           `json:"visibility"`
	EventDates        *eventDatesInput  `json:"eventDates"`
	Location          *eventLocationDTO `json:"location"`
	Description       *string           `json:"description"`
	Host              *string           `json:"host"`
	Agenda            *string           `json:"agenda"`
	Focus             *string           `json:"focus"`
	EventURL          *string           `json:"eventUrl"`
	Banner            *string           `json:"banner"`
	Hashtag           *string           `json:"hashtag"`
	Topics            *[]string         `json:"topics"`
	TargetAudience    *[]string         `json:"targetAudience"`
	TargetAccounts    *[]string         `json:"targetAccounts"`
	Tags              *[]string         `json:"tags"`
	Speakers          *[]speakerDTO     `json:"speakers"`
	ExpectedAttendees *int              `json:"expectedAttendees"`
}

// patch is in as the slice's Patch, its dates read (a bad one recorded in
// Unreadable).
func (in eventPatch) patch() event.Patch {
	p := event.Patch{
		Name: in.Name, Type: in.Type, Status: in.Status, Visibility: in.Visibility,
		Location:    (*event.Location)(in.Location),
		Description: in.Description, Host: in.Host, Agenda: in.Agenda, Focus: in.Focus,
		EventURL: in.EventURL, Banner: in.Banner, Hashtag: in.Hashtag,
		Topics: in.Topics, TargetAudience: in.TargetAudience, TargetAccounts: in.TargetAccounts, Tags: in.Tags,
		ExpectedAttendees: in.ExpectedAttendees,
	}
	if in.Speakers != nil {
		speakers := mapAll(*in.Speakers, speakerOf)
		p.Speakers = &speakers
	}
	if d := in.EventDates; d != nil {
		if d.Start != "" {
			start := parseDateTime(&p.Unreadable, "eventDates.start", d.Start)
			p.Start = &start
		}
		if d.End != "" {
			end := parseDateTime(&p.Unreadable, "eventDates.end", d.End)
			p.End = &end
		}
	}
	return p
}

func (s *Server) updateEvent(w http.ResponseWriter, r *http.Request) error {
	var in eventPatch
	if err := decode(w, r, &in); err != nil {
		return err
	}
	e, err := s.events.Update(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"), in.patch())
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Event updated", toEventDTO(e))
	return nil
}

// deletedEvent is the data of DELETE /events/{id}: the event is kept
// (soft delete) with the version of its deletion.
type deletedEvent struct {
	ID        string `json:"id"`
	IsDeleted bool   `json:"isDeleted"`
	Version   int    `json:"version"`
}

func (s *Server) deleteEvent(w http.ResponseWriter, r *http.Request) error {
	e, err := s.events.Delete(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Event deleted", deletedEvent{ID: e.ID, IsDeleted: true, Version: e.Version})
	return nil
}
