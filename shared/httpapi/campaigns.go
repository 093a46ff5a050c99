package httpapi

import (
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wire"
)

func (s *Server) campaignRoutes() []route {
	return append([]route{
		{pattern: "POST /api/campaigns", handle: s.createCampaign},
		{pattern: "GET /api/campaigns/campaigns", handle: s.listCampaigns},
		{pattern: "GET /api/campaigns/{campaignId}", handle: s.getCampaign},
		{pattern: "PATCH /api/campaigns/{campaignId}", handle: s.updateCampaign},
		{pattern: "DELETE /api/campaigns/{campaignId}", handle: s.deleteCampaign, scope: gifting.ScopeSpend},
		{pattern: "POST /api/campaigns/{campaignId}/launch", handle: s.launchCampaign, rate: gifting.RateLaunch, scope: gifting.ScopeSpend},
		{pattern: "GET /api/campaigns/{campaignId}/metrics", handle: s.campaignMetrics},
		{pattern: "GET /api/campaigns/reports/summary", handle: s.reportSummary},
	}, append(s.lifecycleRoutes(), s.brandingRoutes()...)...)
}

func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request) error {
	var in campaignInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	p := principal(r.Context())
	c := campaign.Campaign{CreatedBy: p.UserID}
	if err := in.edit().Apply(&c, true); err != nil {
		return err
	}
	idem, err := idempotencyKey(r, "campaign-create", "", in)
	if err != nil {
		return err
	}
	c, stored, err := s.campaigns.Create(r.Context(), p.OrgID, c,
		idempotent(idem, http.StatusCreated, "Campaign created", func(c campaign.Campaign) any { return wire.CampaignOf(c) }))
	if err != nil || stored != nil {
		return writeStored(w, stored, err)
	}
	writeEnvelope(w, http.StatusCreated, "Campaign created", wire.CampaignOf(c))
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
	c, err := s.campaigns.Campaign(r.Context(), principal(r.Context()).OrgID, r.PathValue("campaignId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign retrieved", wire.CampaignOf(c))
	return nil
}

func (s *Server) updateCampaign(w http.ResponseWriter, r *http.Request) error {
	var in campaignInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	p := principal(r.Context())
	c, err := s.campaigns.Update(r.Context(), p.OrgID, r.PathValue("campaignId"), p.UserID, in.edit())
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign updated", wire.CampaignOf(c))
	return nil
}

func (s *Server) deleteCampaign(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	c, err := s.campaigns.Delete(r.Context(), p.OrgID, r.PathValue("campaignId"), p.UserID)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign deleted", deletedCampaign{CampaignID: c.CampaignID, IsDeleted: true})
	return nil
}

func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	page := q.page(12)
	statuses := make([]string, len(campaign.Statuses))
	for i, st := range campaign.Statuses {
		statuses[i] = string(st)
	}
	p := principal(r.Context())
	f := campaign.Filter{
		Status:      campaign.Status(q.enum("status", "", statuses...)),
		Search:      q.search(maxSearch),
		CreatedFrom: q.timestamp("createdFrom"),
		CreatedTo:   q.timestamp("createdTo"),
	}
	sortBy := q.enum("sortBy", campaign.SortCreatedAt, campaign.Sorts...)
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
	// Only the creation order with no filter follows a key (the store
	// sorts and filters the others in memory).
	binding := gifting.Binding(p.OrgID, "campaigns", string(order))
	q.cursorPage(&page, binding, f.Empty() && sortBy == campaign.SortCreatedAt)
	if err := q.err(); err != nil {
		return err
	}
	campaigns, total, err := s.campaigns.List(r.Context(), p.OrgID, f, sortBy, order, page)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toCampaignList(campaigns, page, total, binding))
	return nil
}

func (s *Server) campaignMetrics(w http.ResponseWriter, r *http.Request) error {
	m, err := s.campaigns.Metrics(r.Context(), principal(r.Context()).OrgID, r.PathValue("campaignId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Campaign metrics retrieved", toMetricsDTO(m))
	return nil
}
