package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/wire"
)

// webhookRoutes are the webhook endpoints, the change feed, the API keys
// and the EasyPost integration (the organization's settings), served by the webhooks group. The handlers call the webhook slice's use cases
// (webhook.App) only.
func (s *Server) webhookRoutes() []route {
	admin := gifting.ScopeAdmin
	return append([]route{
		{pattern: "POST /api/campaigns/webhooks", handle: s.createWebhook, scope: admin},
		{pattern: "GET /api/campaigns/webhooks", handle: s.listWebhooks, scope: admin},
		{pattern: "GET /api/campaigns/webhooks/{webhookId}", handle: s.getWebhook, scope: admin},
		{pattern: "PATCH /api/campaigns/webhooks/{webhookId}", handle: s.patchWebhook, scope: admin},
		{pattern: "DELETE /api/campaigns/webhooks/{webhookId}", handle: s.deleteWebhook, scope: admin},
		{pattern: "POST /api/campaigns/webhooks/{webhookId}/rotate-secret", handle: s.rotateWebhookSecret, scope: admin},
		{pattern: "POST /api/campaigns/webhooks/{webhookId}/test", handle: s.testWebhook, scope: admin},
		{pattern: "GET /api/campaigns/webhooks/{webhookId}/deliveries", handle: s.webhookDeliveries, scope: admin},
		{pattern: "GET /api/campaigns/changes", handle: s.changes},
	}, append(append(s.apiKeyRoutes(), s.usageRoutes()...), s.integrationRoutes()...)...)
}

// webhookDTO is an endpoint as the API shows it (the OpenAPI schema
// Webhook): never its secrets or its failure record.
type webhookDTO struct {
	WebhookID      string    `json:"webhookId"`
	OrganizationID string    `json:"organizationId"`
	URL            string    `json:"url"`
	Events         []string  `json:"events"`
	Description    string    `json:"description"`
	Enabled        bool      `json:"enabled"`
	DisabledReason string    `json:"disabledReason,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

func toWebhookDTO(e webhook.Endpoint) webhookDTO {
	return webhookDTO{WebhookID: e.ID, OrganizationID: e.OrgID, URL: e.URL, Events: e.Events, Description: e.Description,
		Enabled: e.Enabled, DisabledReason: e.DisabledReason, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

// webhookSecretDTO is an endpoint with its secret: the data of a create and
// of a rotation (the OpenAPI schema WebhookSecret).
type webhookSecretDTO struct {
	webhookDTO
	Secret string `json:"secret"`
}

func toWebhookSecretDTO(w webhook.WithSecret) webhookSecretDTO {
	return webhookSecretDTO{webhookDTO: toWebhookDTO(w.Endpoint), Secret: w.Secret}
}

// webhookInputDTO is the body of POST /webhooks (WebhookInput).
type webhookInputDTO struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
}

// webhookPatchDTO is the body of PATCH /webhooks/{id} (WebhookPatch); nil
// fields stay as they are.
type webhookPatchDTO struct {
	URL         *string   `json:"url"`
	Events      *[]string `json:"events"`
	Description *string   `json:"description"`
	Enabled     *bool     `json:"enabled"`
}

// attemptDTO is an attempt as the deliveries log and the test message show
// it (the OpenAPI schema Delivery).
type attemptDTO struct {
	DeliveryID    string     `json:"deliveryId"`
	MessageID     string     `json:"messageId"`
	Type          string     `json:"type"`
	Attempt       int        `json:"attempt"`
	StatusCode    int        `json:"statusCode"`
	DurationMs    int64      `json:"durationMs"`
	Error         string     `json:"error,omitempty"`
	Outcome       string     `json:"outcome"`
	At            time.Time  `json:"at"`
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
}

func toAttemptDTO(a webhook.Attempt) attemptDTO {
	return attemptDTO{DeliveryID: a.DeliveryID, MessageID: a.MessageID, Type: a.Type, Attempt: a.Number, StatusCode: a.StatusCode,
		DurationMs: a.Duration.Milliseconds(), Error: a.Error, Outcome: string(a.Outcome), At: a.At, NextAttemptAt: a.NextAttemptAt}
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) error {
	var in webhookInputDTO
	if err := decode(w, r, &in); err != nil {
		return err
	}
	wh, err := s.webhooks.Create(r.Context(), principal(r.Context()).OrgID,
		webhook.Input{URL: in.URL, Events: in.Events, Description: in.Description})
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Webhook endpoint created; keep the secret, it is not shown again", toWebhookSecretDTO(wh))
	return nil
}

// webhookList is the data of GET /webhooks.
type webhookList struct {
	Items []webhookDTO `json:"items"`
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	es, err := s.webhooks.Endpoints(r.Context(), principal(r.Context()).OrgID)
	if err != nil {
		return err
	}
	items := make([]webhookDTO, len(es))
	for i, e := range es {
		items[i] = toWebhookDTO(e)
	}
	writeEnvelope(w, http.StatusOK, "Webhook endpoints", webhookList{Items: items})
	return nil
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request) error {
	e, err := s.webhooks.Endpoint(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Webhook endpoint", toWebhookDTO(e))
	return nil
}

func (s *Server) patchWebhook(w http.ResponseWriter, r *http.Request) error {
	var p webhookPatchDTO
	if err := decode(w, r, &p); err != nil {
		return err
	}
	e, err := s.webhooks.Patch(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"),
		webhook.Patch{URL: p.URL, Events: p.Events, Description: p.Description, Enabled: p.Enabled})
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Webhook endpoint updated", toWebhookDTO(e))
	return nil
}

// webhookRef is the data of a delete.
type webhookRef struct {
	WebhookID string `json:"webhookId"`
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("webhookId")
	if err := s.webhooks.Delete(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Webhook endpoint deleted", webhookRef{WebhookID: id})
	return nil
}

func (s *Server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	wh, err := s.webhooks.Rotate(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Secret rotated; the previous one keeps signing for 24 hours", toWebhookSecretDTO(wh))
	return nil
}

func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) error {
	a, err := s.webhooks.Test(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Test message sent", toAttemptDTO(a))
	return nil
}

// deliveryPage is the data of GET /webhooks/{id}/deliveries.
type deliveryPage struct {
	Items      []attemptDTO `json:"items"`
	NextCursor string       `json:"nextCursor"`
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
	as, next, err := s.webhooks.Attempts(r.Context(), principal(r.Context()).OrgID, r.PathValue("webhookId"), cursor, limit)
	if err != nil {
		return err
	}
	items := make([]attemptDTO, len(as))
	for i, a := range as {
		items[i] = toAttemptDTO(a)
	}
	writeEnvelope(w, http.StatusOK, "Delivery attempts, newest first", deliveryPage{Items: items, NextCursor: next})
	return nil
}

// changePage is the data of GET /changes: messages in commit order, each
// as the webhooks send it (wire.Change), and the cursor that continues
// after the last one.
type changePage struct {
	Items      []json.RawMessage `json:"items"`
	NextCursor string            `json:"nextCursor"`
}

func (s *Server) changes(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	limit := q.integer("limit", 50, 1, 100)
	if err := q.err(); err != nil {
		return err
	}
	page, err := s.webhooks.Changes(r.Context(), principal(r.Context()).OrgID, q.str("after"), limit)
	if err != nil {
		return err
	}
	items := make([]json.RawMessage, len(page.Messages))
	for i, m := range page.Messages {
		if items[i], err = wire.Change(m); err != nil {
			return err
		}
	}
	writeEnvelope(w, http.StatusOK, "Changes in commit order", changePage{Items: items, NextCursor: page.Next})
	return nil
}
