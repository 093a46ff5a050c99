package httpapi

import (
	"cmp"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
)

func (s *Server) campaignRoutes() []route {
	return append([]route{
		{pattern: "POST /api/campaigns", handle: s.createCampaign},
		{pattern: "GET /api/campaigns/campaigns", handle: s.listCampaigns},
		{pattern: "GET /api/campaigns/{campaignId}", handle: s.getCampaign},
		{pattern: "PATCH /api/campaigns/{campaignId}", handle: s.updateCampaign},
		{pattern: "DELETE /api/campaigns/{campaignId}", handle: s.deleteCampaign},
		{pattern: "POST /api/campaigns/{campaignId}/launch", handle: s.launchCampaign},
		{pattern: "GET /api/campaigns/{campaignId}/metrics", handle: s.campaignMetrics},
	}, s.lifecycleRoutes()...)
}

// Bounds of campaign input.
const (
	maxCampaignName        = 200
	maxCampaignDescription = 2000
	maxCampaignLists       = 20
	maxCampaignGifts       = 50
)

// campaignInput is the body of POST /api/campaigns and of PATCH: variant A
// (name, contactListIds, templateId, scheduledAt) and variant B (name,
// description, campaignData) of the original interface (docs/resources.md),
// which may also be mixed. On PATCH every field is optional and only those sent
// change.
type campaignInput struct {
	Name           *string            `json:"name"`
	Description    *string            `json:"description"`
	ContactListIDs []string           `json:"contactListIds"`
	TemplateID     *string            `json:"templateId"`
	ScheduledAt    *string            `json:"scheduledAt"`
	CampaignData   *campaignDataInput `json:"campaignData"`
}

// campaignDataInput is campaignData as a client sends it.
type campaignDataInput struct {
	ContactListID       *string  `json:"contactListId"`
	ContactListIDs      []string `json:"contactListIds"`
	GiftIDs             []string `json:"giftIds"`
	EmailTemplateID     *string  `json:"emailTemplateId"`
	ScheduledAt         *string  `json:"scheduledAt"`
	CreditsPerRecipient *int64   `json:"creditsPerRecipient"`
	ClaimExpiresInDays  *int64   `json:"claimExpiresInDays"`
}

// apply validates in and applies it to c: every field sent replaces the
// campaign's. It collects every problem into one VALIDATION_FAILED error.
func (in campaignInput) apply(c *gifting.Campaign, creating bool) error {
	var p gifting.Problems
	d := in.CampaignData
	if d == nil {
		d = &campaignDataInput{}
	}
	if in.Name != nil || creating {
		name := strings.TrimSpace(deref(in.Name))
		switch {
		case name == "":
			p.Add("name", "is required")
		case utf8.RuneCountInString(name) > maxCampaignName:
			p.Add("name", fmt.Sprintf("must be at most %d characters", maxCampaignName))
		}
		c.Name = name
	}
	if in.Description != nil {
		c.Description = strings.TrimSpace(*in.Description)
		if utf8.RuneCountInString(c.Description) > maxCampaignDescription {
			p.Add("description", fmt.Sprintf("must be at most %d characters", maxCampaignDescription))
		}
	}
	if in.ContactListIDs != nil || d.ContactListID != nil || d.ContactListIDs != nil {
		var lists []string
		for _, id := range slices.Concat(in.ContactListIDs, []string{deref(d.ContactListID)}, d.ContactListIDs) {
			if len(lists) > maxCampaignLists {
				break // too many already; the rest would cost the square of the list
			}
			if id = strings.TrimSpace(id); id != "" && !slices.Contains(lists, id) {
				lists = append(lists, id)
			}
		}
		if len(lists) > maxCampaignLists {
			p.Add("contactListIds", fmt.Sprintf("at most %d contact lists", maxCampaignLists))
		}
		c.CampaignData.ContactListIDs, c.CampaignData.ContactListID = lists, ""
		if len(lists) > 0 {
			c.CampaignData.ContactListID = lists[0]
		}
	}
	if in.TemplateID != nil || d.EmailTemplateID != nil {
		a, b := strings.TrimSpace(deref(in.TemplateID)), strings.TrimSpace(deref(d.EmailTemplateID))
		if a != "" && b != "" && a != b {
			p.Add("templateId", "differs from campaignData.emailTemplateId; send one of them")
		}
		c.CampaignData.EmailTemplateID = cmp.Or(a, b)
	}
	if in.ScheduledAt != nil || d.ScheduledAt != nil {
		field, raw := "scheduledAt", deref(in.ScheduledAt)
		if in.ScheduledAt == nil {
			field, raw = "campaignData.scheduledAt", deref(d.ScheduledAt)
		}
		c.CampaignData.ScheduledAt = nil
		if raw = strings.TrimSpace(raw); raw != "" {
			t, ok := parseInstant(raw)
			if !ok || len(raw) == len("2006-01-02") { // a date-time, not a date
				p.Add(field, "must be an ISO 8601 date-time such as 2026-01-31T09:00:00Z")
			} else {
				t = t.Truncate(time.Millisecond)
				c.CampaignData.ScheduledAt = &t
			}
		}
	}
	if d.GiftIDs != nil {
		var gifts []string
		ids := d.GiftIDs
		if len(ids) > maxCampaignGifts {
			// Too many as sent (the API document's maxItems counts repeats
			// too); the rest is not compared, which would cost the square
			// of the list.
			p.Add("campaignData.giftIds", fmt.Sprintf("at most %d gifts", maxCampaignGifts))
			ids = ids[:maxCampaignGifts]
		}
		for _, id := range ids {
			if id = strings.TrimSpace(id); id != "" && !slices.Contains(gifts, id) {
				gifts = append(gifts, id)
			}
		}
		c.CampaignData.GiftIDs = gifts
	}
	if d.CreditsPerRecipient != nil {
		if n := *d.CreditsPerRecipient; n < 0 || n > gifting.MaxCreditsPerRecipient {
			p.Add("campaignData.creditsPerRecipient", fmt.Sprintf("must be a whole number from 0 to %d", gifting.MaxCreditsPerRecipient))
		}
		c.CampaignData.CreditsPerRecipient, c.CampaignData.PriceSet = *d.CreditsPerRecipient, true
	}
	switch {
	case d.ClaimExpiresInDays != nil:
		if n := *d.ClaimExpiresInDays; n < 1 || n > gifting.MaxClaimExpiresInDays {
			p.Add("campaignData.claimExpiresInDays", fmt.Sprintf("must be a whole number of days from 1 to %d", gifting.MaxClaimExpiresInDays))
		} else {
			c.CampaignData.ClaimExpiresInDays = int(n)
		}
	case creating:
		c.CampaignData.ClaimExpiresInDays = gifting.DefaultClaimExpiresInDays
	}
	return p.Err()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request) error {
	var in campaignInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	p := principal(r.Context())
	c := gifting.Campaign{CreatedBy: p.UserID}
	if err := in.apply(&c, true); err != nil {
		return err
	}
	idem, err := idempotencyKey(r, "campaign-create", "", in)
	if err != nil {
		return err
	}
	c, stored, err := s.svc.CreateCampaign(r.Context(), p.OrgID, c,
		idempotent(idem, http.StatusCreated, "Campaign created", func(c gifting.Campaign) any { return c }))
	if err != nil || stored != nil {
		return writeStored(w, stored, err)
	}
	writeEnvelope(w, http.StatusCreated, "Campaign created", c)
	return nil
}

// idempotent is the gifting.Idempotent of key (nil when the request has
// none) whose stored response is the envelope of what data makes of the
// result, exactly as writeEnvelope would write it.
func idempotent[T any](key *gifting.IdempotencyKey, status int, message string, data func(T) any) *gifting.Idempotent[T] {
	return replayable(key, status, func(v T) any {
		return Envelope{Success: true, StatusCode: status, Message: message, Data: data(v)}
	})
}

// replayable is the gifting.Idempotent of key (nil when the request has
// none) whose stored response is status and the body the result makes,
// exactly as writeJSON would write them. A replay is written back with
// writeStored.
func replayable[T any](key *gifting.IdempotencyKey, status int, body func(T) any) *gifting.Idempotent[T] {
	if key == nil {
		return nil
	}
	return &gifting.Idempotent[T]{Key: *key, Status: status, Render: func(v T) ([]byte, error) {
		return marshalWire(body(v))
	}}
}

// writeStored answers a retried request with the first response, or
// returns err.
func writeStored(w http.ResponseWriter, stored *gifting.StoredResponse, err error) error {
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Idempotent-Replayed", "true")
	w.WriteHeader(stored.Status)
	_, _ = w.Write(stored.Body) // the status is sent; nobody is left to tell
	return nil
}

func (s *Server) getCampaign(w http.ResponseWriter, r *http.Request) error {
	c, err := s.store.Campaign(r.Context(), principal(r.Context()).OrgID, r.PathValue("campaignId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign retrieved", c)
	return nil
}

func (s *Server) updateCampaign(w http.ResponseWriter, r *http.Request) error {
	var in campaignInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	p := principal(r.Context())
	c, err := s.svc.UpdateCampaign(r.Context(), p.OrgID, r.PathValue("campaignId"), p.UserID,
		func(c *gifting.Campaign) error { return in.apply(c, false) })
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign updated", c)
	return nil
}

// deletedCampaign is the data of DELETE's response.
type deletedCampaign struct {
	CampaignID string `json:"campaignId"`
	IsDeleted  bool   `json:"isDeleted"`
}

func (s *Server) deleteCampaign(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	c, err := s.svc.DeleteCampaign(r.Context(), p.OrgID, r.PathValue("campaignId"), p.UserID)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign deleted", deletedCampaign{CampaignID: c.CampaignID, IsDeleted: true})
	return nil
}

// campaignList is the bare response of GET /api/campaigns/campaigns.
type campaignList struct {
	Campaigns  []gifting.Campaign `json:"campaigns"`
	Pagination gifting.Pagination `json:"pagination"`
}

func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	page := q.page(12)
	statuses := make([]string, len(gifting.CampaignStatuses))
	for i, st := range gifting.CampaignStatuses {
		statuses[i] = string(st)
	}
	p := principal(r.Context())
	f := gifting.CampaignFilter{
		Status:      gifting.CampaignStatus(q.enum("status", "", statuses...)),
		Search:      q.search(maxSearch),
		CreatedFrom: q.timestamp("createdFrom"),
		CreatedTo:   q.timestamp("createdTo"),
	}
	sortBy := q.enum("sortBy", gifting.CampaignSortCreatedAt, gifting.CampaignSorts...)
	order := q.sortOrder(gifting.Desc)
	if mine := q.boolean("myCampaigns"); mine != nil && *mine {
		f.CreatedBy = p.UserID
	}
	if f.CreatedTo != nil && len(q.str("createdTo")) == len("2006-01-02") {
		// A date alone means the whole of that day.
		end := f.CreatedTo.Add(24*time.Hour - time.Millisecond)
		f.CreatedTo = &end
	}
	if f.CreatedFrom != nil && f.CreatedTo != nil && f.CreatedTo.Before(*f.CreatedFrom) {
		q.problems.Add("createdTo", "must not be before createdFrom")
	}
	if err := q.err(); err != nil {
		return err
	}
	campaigns, total, err := s.store.ListCampaigns(r.Context(), p.OrgID, f, sortBy, order, page)
	if err != nil {
		return err
	}
	for i := range campaigns {
		campaigns[i].Normalize()
	}
	if campaigns == nil {
		campaigns = []gifting.Campaign{}
	}
	writeJSON(w, http.StatusOK, campaignList{Campaigns: campaigns, Pagination: gifting.NewPagination(page, total)})
	return nil
}

func (s *Server) campaignMetrics(w http.ResponseWriter, r *http.Request) error {
	c, err := s.store.Campaign(r.Context(), principal(r.Context()).OrgID, r.PathValue("campaignId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign metrics retrieved", c.Metrics())
	return nil
}
