package httpapi

import (
	"net/http"
	"slices"
	"strings"
	"time"

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

// eventBody is the bare response of GET /events/{id}.
type eventBody struct {
	Event gifting.Event `json:"event"`
}

func (s *Server) getEvent(w http.ResponseWriter, r *http.Request) error {
	e, err := s.store.Event(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, eventBody{Event: e})
	return nil
}

// eventInput is the body of POST /events: the Event fields a caller sets.
// Dates are read as text so a bad one is reported by field.
type eventInput struct {
	Name              string                `json:"name"`
	Type              string                `json:"type"`
	Status            string                `json:"status"`
	Visibility        string                `json:"visibility"`
	EventDates        *eventDatesInput      `json:"eventDates"`
	Location          gifting.EventLocation `json:"location"`
	Description       string                `json:"description"`
	Host              string                `json:"host"`
	Agenda            string                `json:"agenda"`
	Focus             string                `json:"focus"`
	EventURL          string                `json:"eventUrl"`
	Banner            string                `json:"banner"`
	Hashtag           string                `json:"hashtag"`
	Topics            []string              `json:"topics"`
	TargetAudience    []string              `json:"targetAudience"`
	TargetAccounts    []string              `json:"targetAccounts"`
	LinkedCampaigns   []string              `json:"linkedCampaigns"`
	Tags              []string              `json:"tags"`
	Speakers          []gifting.Speaker     `json:"speakers"`
	ExpectedAttendees int                   `json:"expectedAttendees"`
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
	e := gifting.Event{
		Name: in.Name, Type: in.Type, Status: in.Status, Visibility: in.Visibility, Location: in.Location,
		Description: in.Description, Host: in.Host, Agenda: in.Agenda, Focus: in.Focus, EventURL: in.EventURL,
		Banner: in.Banner, Hashtag: in.Hashtag, Topics: in.Topics, TargetAudience: in.TargetAudience,
		TargetAccounts: in.TargetAccounts, Tags: in.Tags, Speakers: in.Speakers, ExpectedAttendees: in.ExpectedAttendees,
	}
	if in.EventDates != nil {
		e.EventDates.Start = parseDateTime(&p, "eventDates.start", in.EventDates.Start)
		e.EventDates.End = parseDateTime(&p, "eventDates.end", in.EventDates.End)
	}
	links, linkErr := campaignIDs(in.LinkedCampaigns, "linkedCampaigns", false)
	err := e.Validate()
	if err := mergeProblems(p, err, linkErr); err != nil {
		return err
	}
	e.LinkedCampaigns = links
	pr := principal(r.Context())
	e, err = s.store.CreateEvent(r.Context(), pr.OrgID, pr.UserID, e)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Event created", e)
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

// mergeProblems joins the problems found while reading a body with those of
// validation errors: one response reports them all. A non-validation error
// is returned as it is.
func mergeProblems(p gifting.Problems, errs ...error) error {
	for _, err := range errs {
		if err == nil {
			continue
		}
		var e *gifting.Error
		if !asError(err, &e) || e.Code != gifting.CodeValidation {
			return err
		}
		for field, problem := range e.Details {
			p.Add(field, problem)
		}
	}
	return p.Err()
}

// campaignIDs trims, de-duplicates and bounds a list of campaign ids given
// in field; required says whether it may be empty.
func campaignIDs(ids []string, field string, required bool) ([]string, error) {
	var p gifting.Problems
	out := make([]string, 0, min(len(ids), gifting.MaxEventCampaign+1))
	for _, id := range ids {
		if len(out) > gifting.MaxEventCampaign {
			break // too many already; the rest would cost the square of the list
		}
		id = strings.TrimSpace(id)
		if id == "" {
			p.Add(field, "entries must not be blank")
			continue
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	switch {
	case required && len(ids) == 0:
		p.Add(field, "is required: at least one campaign id")
	case len(out) > gifting.MaxEventCampaign:
		p.Add(field, "must hold at most 100 campaign ids")
	}
	return out, p.Err()
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
	ids, err := campaignIDs(in.CampaignIDs, "campaignIds", true)
	if err != nil {
		return err
	}
	e, err := s.store.LinkEventCampaigns(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"), ids)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaigns linked", e)
	return nil
}

func (s *Server) unlinkEventCampaign(w http.ResponseWriter, r *http.Request) error {
	e, err := s.store.UnlinkEventCampaign(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"), r.PathValue("campaignId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign unlinked", e)
	return nil
}

func (s *Server) listEvents(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	lq := listQuery(q, gifting.EventSorts)
	f := gifting.EventFilter{
		Status: q.enum("status", "", gifting.EventStatuses...),
		Type:   q.enum("type", "", gifting.EventTypes...),
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
	if err := q.err(); err != nil {
		return err
	}
	items, total, err := s.store.ListEvents(r.Context(), principal(r.Context()).OrgID, f, lq)
	if err != nil {
		return err
	}
	writeList(w, "Events retrieved", items, lq.Page, total)
	return nil
}

// eventPatch is the body of PATCH /events/{id}: only sent fields change.
// eventDates.start and .end change one by one; a sent location, list or
// speakers replaces the stored one. Links change through the link
// endpoints, so linkedCampaigns is not a field here.
type eventPatch struct {
	Name              *string                `json:"name"`
	Type              *string                `json:"type"`
	Status            *string                `json:"status"`
	Visibility        *string                `json:"visibility"`
	EventDates        *eventDatesInput       `json:"eventDates"`
	Location          *gifting.EventLocation `json:"location"`
	Description       *string                `json:"description"`
	Host              *string                `json:"host"`
	Agenda            *string                `json:"agenda"`
	Focus             *string                `json:"focus"`
	EventURL          *string                `json:"eventUrl"`
	Banner            *string                `json:"banner"`
	Hashtag           *string                `json:"hashtag"`
	Topics            *[]string              `json:"topics"`
	TargetAudience    *[]string              `json:"targetAudience"`
	TargetAccounts    *[]string              `json:"targetAccounts"`
	Tags              *[]string              `json:"tags"`
	Speakers          *[]gifting.Speaker     `json:"speakers"`
	ExpectedAttendees *int                   `json:"expectedAttendees"`
}

// apply sets the sent fields on e and validates the result as a create
// would.
func (in eventPatch) apply(e *gifting.Event) error {
	var p gifting.Problems
	for _, f := range []struct {
		dst *string
		v   *string
	}{
		{&e.Name, in.Name}, {&e.Type, in.Type}, {&e.Status, in.Status}, {&e.Visibility, in.Visibility},
		{&e.Description, in.Description}, {&e.Host, in.Host}, {&e.Agenda, in.Agenda}, {&e.Focus, in.Focus},
		{&e.EventURL, in.EventURL}, {&e.Banner, in.Banner}, {&e.Hashtag, in.Hashtag},
	} {
		setIf(f.dst, f.v)
	}
	for _, f := range []struct {
		dst *[]string
		v   *[]string
	}{
		{&e.Topics, in.Topics}, {&e.TargetAudience, in.TargetAudience}, {&e.TargetAccounts, in.TargetAccounts}, {&e.Tags, in.Tags},
	} {
		setIf(f.dst, f.v)
	}
	setIf(&e.Location, in.Location)
	setIf(&e.Speakers, in.Speakers)
	setIf(&e.ExpectedAttendees, in.ExpectedAttendees)
	if d := in.EventDates; d != nil {
		if d.Start != "" {
			e.EventDates.Start = parseDateTime(&p, "eventDates.start", d.Start)
		}
		if d.End != "" {
			e.EventDates.End = parseDateTime(&p, "eventDates.end", d.End)
		}
	}
	return mergeProblems(p, e.Validate())
}

func (s *Server) updateEvent(w http.ResponseWriter, r *http.Request) error {
	var in eventPatch
	if err := decode(w, r, &in); err != nil {
		return err
	}
	e, err := s.store.UpdateEvent(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"), in.apply)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Event updated", e)
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
	e, err := s.store.DeleteEvent(r.Context(), principal(r.Context()).OrgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Event deleted", deletedEvent{ID: e.ID, IsDeleted: true, Version: e.Version})
	return nil
}
