package httpapi

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// integrationRoutes are the EasyPost integration (docs/fulfilment.md,
// "Carrier tracking with EasyPost"): its webhook secret, an organization
// setting (admin scope), and the events URL EasyPost posts its tracker
// events to, public (EasyPost holds no API key: the signature is the
// authentication). Served by the webhooks function, whose role alone
// (with the worker's) may use the key that seals and opens secrets.
func (s *Server) integrationRoutes() []route {
	admin := gifting.ScopeAdmin
	return []route{
		{pattern: "PUT /api/campaigns/integrations/easypost", handle: s.putEasyPost, scope: admin},
		{pattern: "GET /api/campaigns/integrations/easypost", handle: s.getEasyPost, scope: admin},
		{pattern: "POST /api/campaigns/integrations/easypost/{organizationId}/events", handle: s.easyPostEvent, public: true},
	}
}

// easyPostDTO is the integration as the API shows it: whether a secret is
// set and when, never the secret; and the path of the URL to give
// EasyPost.
type easyPostDTO struct {
	WebhookSecretSet bool       `json:"webhookSecretSet"`
	UpdatedAt        *time.Time `json:"updatedAt"`
	EventsPath       string     `json:"eventsPath"`
}

// easyPostBody is the body of PUT /integrations/easypost.
type easyPostBody struct {
	WebhookSecret string `json:"webhookSecret"`
}

// easyPostEventsPath is the path of orgID's events URL.
func easyPostEventsPath(orgID string) string {
	return "/api/campaigns/integrations/easypost/" + orgID + "/events"
}

func (s *Server) putEasyPost(w http.ResponseWriter, r *http.Request) error {
	var body easyPostBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	orgID := principal(r.Context()).OrgID
	if err := s.easypost.SetSecret(r.Context(), orgID, body.WebhookSecret); err != nil {
		return err
	}
	return s.writeEasyPost(w, r, orgID, "EasyPost webhook secret set")
}

func (s *Server) getEasyPost(w http.ResponseWriter, r *http.Request) error {
	return s.writeEasyPost(w, r, principal(r.Context()).OrgID, "EasyPost integration retrieved")
}

func (s *Server) writeEasyPost(w http.ResponseWriter, r *http.Request, orgID, message string) error {
	set, at, err := s.easypost.Integration(r.Context(), orgID)
	if err != nil {
		return err
	}
	dto := easyPostDTO{WebhookSecretSet: set, EventsPath: easyPostEventsPath(orgID)}
	if set {
		dto.UpdatedAt = &at
	}
	writeEnvelope(w, http.StatusOK, message, dto)
	return nil
}

// maxEventBody bounds an EasyPost event: a tracker with its scans is a few
// kilobytes, the longest seen well under 100 KB.
const maxEventBody = 1 << 20

// easyPostEventDTO is what an event did.
type easyPostEventDTO struct {
	// Applied is true when the event changed an order.
	Applied     bool   `json:"applied"`
	OrderID     string `json:"orderId"`
	OrderStatus string `json:"orderStatus"`
	// Reason says why nothing changed ("" when applied).
	Reason string `json:"reason"`
}

// easyPostEvent serves POST /integrations/easypost/{organizationId}/events:
// a tracker event signed with the organization's secret moves its order
// (recipient.App.Track). An unsigned or wrongly signed event, or one sent
// to an organization that has no secret or does not exist, is the same
// 401 and changes nothing. EasyPost sends an event again until it gets a
// 2xx, so every event this service will never act on is a 200 that says
// why: another type (batch.updated, …), or a tracking number no shipment
// of the organization has.
func (s *Server) easyPostEvent(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxEventBody))
	if err != nil {
		return gifting.Errorf(gifting.CodeTooLarge, "the event is larger than %d bytes", maxEventBody)
	}
	if !jsonMediaType(r.Header.Get("Content-Type")) {
		return gifting.Errorf(gifting.CodeUnsupportedMedia, "an EasyPost event is sent with Content-Type: application/json")
	}
	orgID := r.PathValue("organizationId")
	u, err := s.easypost.Verified(r.Context(), orgID, body, r.Header)
	switch {
	case gifting.ErrorCode(err) == gifting.CodeUnauthorized:
		loggerFrom(r.Context()).InfoContext(r.Context(), "EasyPost event refused", slog.String("organizationId", orgID),
			slog.String("reason", gifting.ErrorMessage(err)))
		writeJSON(w, http.StatusUnauthorized, ErrorBody{StatusCode: http.StatusUnauthorized,
			Message: messageOf[http.StatusUnauthorized], Error: gifting.ErrorMessage(err)})
		return nil
	case errors.Is(err, fulfilment.ErrUnsupportedEvent):
		writeEnvelope(w, http.StatusOK, "Event ignored", easyPostEventDTO{Reason: "only tracker.created and tracker.updated events move orders"})
		return nil
	case err != nil:
		return err
	}
	t, err := s.recipients.Track(r.Context(), orgID, u)
	switch {
	case gifting.ErrorCode(err) == gifting.CodeNotFound:
		writeEnvelope(w, http.StatusOK, "Event ignored", easyPostEventDTO{
			Reason: "no shipment of this organization has this carrier and tracking code (record it with POST /api/campaigns/orders/{orderId}/shipments)"})
		return nil
	case err != nil:
		return err
	}
	dto := easyPostEventDTO{Applied: t.Applied, OrderID: t.Order.OrderID, OrderStatus: string(t.Order.Status)}
	if !t.Applied {
		dto.Reason = "the order already has this view of the parcel, or a later one"
	}
	loggerFrom(r.Context()).InfoContext(r.Context(), "EasyPost event", slog.String("organizationId", orgID),
		slog.String("eventId", gifting.Clip(u.EventID, 64)), slog.String("orderId", dto.OrderID), slog.Bool("applied", dto.Applied))
	writeEnvelope(w, http.StatusOK, "Event received", dto)
	return nil
}
