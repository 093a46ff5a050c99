package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/gifting"
)

// webhookRoutes are the webhook endpoints and the change feed, served by
// the webhooks group.
func (s *Server) webhookRoutes() []route {
	return []route{
		{pattern: "POST /api/campaigns/webhooks", handle: s.createWebhook},
		{pattern: "GET /api/campaigns/webhooks", handle: s.listWebhooks},
		{pattern: "GET /api/campaigns/webhooks/{webhookId}", handle: s.getWebhook},
		{pattern: "PATCH /api/campaigns/webhooks/{webhookId}", handle: s.patchWebhook},
		{pattern: "DELETE /api/campaigns/webhooks/{webhookId}", handle: s.deleteWebhook},
		{pattern: "POST /api/campaigns/webhooks/{webhookId}/rotate-secret", handle: s.rotateWebhookSecret},
		{pattern: "POST /api/campaigns/webhooks/{webhookId}/test", handle: s.testWebhook},
		{pattern: "GET /api/campaigns/webhooks/{webhookId}/deliveries", handle: s.webhookDeliveries},
		{pattern: "GET /api/campaigns/changes", handle: s.changes},
	}
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) error {
	var in gifting.WebhookInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	wh, err := s.svc.CreateWebhook(r.Context(), principal(r.Context()).OrgID, in)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Webhook endpoint created; keep the secret, it is not shown again", wh)
	return nil
}

// webhookList is the data of GET /webhooks.
type webhookList struct {
	Items []gifting.Webhook `json:"items"`
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.svc.Webhooks(r.Context(), principal(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Webhook endpoints", webhookList{Items: ws})
	return nil
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request) error {
	wh, err := s.svc.Webhook(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Webhook endpoint", wh)
	return nil
}

func (s *Server) patchWebhook(w http.ResponseWriter, r *http.Request) error {
	var p gifting.WebhookPatch
	if err := decode(w, r, &p); err != nil {
		return err
	}
	wh, err := s.svc.PatchWebhook(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"), p)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Webhook endpoint updated", wh)
	return nil
}

// webhookRef is the data of a delete.
type webhookRef struct {
	WebhookID string `json:"webhookId"`
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("webhookId")
	if err := s.svc.DeleteWebhook(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Webhook endpoint deleted", webhookRef{WebhookID: id})
	return nil
}

func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	wh, err := s.svc.RotateWebhookSecret(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Secret rotated; the previous one keeps signing for 24 hours", wh)
	return nil
}

func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) error {
	d, err := s.svc.TestWebhook(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Test message sent", d)
	return nil
}

// deliveryPage is the data of GET /webhooks/{id}/deliveries.
type deliveryPage struct {
	Items      []gifting.Delivery `json:"items"`
	NextCursor string             `json:"nextCursor"`
}

func (s *Server) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	limit := q.integer("limit", 20, 1, 100)
	cursor := q.str("cursor")
	if cursor != "" && !gifting.ValidID(cursor) {
		q.problems.Add("cursor", "must be a cursor a previous page returned")
	}
	if err := q.err(); err != nil {
		return err
	}
	ds, next, err := s.svc.WebhookDeliveries(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"), cursor, limit)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Delivery attempts, newest first", deliveryPage{Items: ds, NextCursor: next})
	return nil
}

func (s *Server) changes(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	limit := q.integer("limit", 50, 1, 100)
	if err := q.err(); err != nil {
		return err
	}
	page, err := s.svc.Changes(r.Context(), principal(r.Context()).OrgID, q.str("after"), limit)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Changes in commit order", page)
	return nil
}
