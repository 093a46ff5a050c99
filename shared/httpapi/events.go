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
		{pattern: "POST /api/campaigns/events", handle: s.createEvent},
		{pattern: "GET /api/campaigns/events/{id}", handle: s.getEvent},
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
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
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
	out := make([]string, 0, len(ids))
	for _, id := range ids {
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
