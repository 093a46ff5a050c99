package webhook

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// GoneReason is why an endpoint that answered 410 Gone is disabled.
const GoneReason = "the endpoint answered 410 Gone"

// DeliveryRef is the due-item ref of the delivery of message msgID to
// endpoint webhookID (JobDelivery).
func DeliveryRef(webhookID, msgID string) string { return webhookID + "/" + msgID }

// ParseDeliveryRef is the endpoint and the message a DeliveryRef names.
func ParseDeliveryRef(ref string) (webhookID, msgID string) {
	webhookID, msgID, _ = strings.Cut(ref, "/")
	return webhookID, msgID
}

// Deliveries are the deliveries of m, rendered as body, to the endpoints
// of eps that want it (enabled and subscribed to its type).
func Deliveries(eps []Endpoint, m Message, body []byte) []Delivery {
	var out []Delivery
	for _, e := range eps {
		if e.Wants(m.Type) {
			out = append(out, Delivery{WebhookID: e.ID, MessageID: m.ID, Type: m.Type, Body: body})
		}
	}
	return out
}

// TestMessage is the webhook.test message sent to endpoint webhookID of
// orgID at now: never retried, never in the change feed.
func TestMessage(orgID, webhookID string, now time.Time) Message {
	return Message{ID: "test_" + gifting.NewIDAt(now), Type: gifting.ChangeWebhookTest, CreatedAt: now, OrgID: orgID,
		Data: Test{WebhookID: webhookID}}
}

// Sent is what one attempt to send a message came to.
type Sent struct {
	// StatusCode is the answer's status, 0 when there was none.
	StatusCode int
	Duration   time.Duration
	// Err is why the attempt failed: no answer, or one outside 2xx.
	Err error
}

// Gone reports whether the receiver answered 410 Gone: it wants no more
// messages (Standard Webhooks), so the endpoint is disabled at once.
func (s Sent) Gone() bool { return s.StatusCode == http.StatusGone }

// Attempt is attempt n of message id of type typ, made at at: Delivered,
// or Failed with why.
func (s Sent) Attempt(id, typ string, n int, at time.Time) Attempt {
	a := Attempt{MessageID: id, Type: typ, Number: n, StatusCode: s.StatusCode, Duration: s.Duration, Outcome: Delivered, At: at}
	if s.Err != nil {
		a.Error, a.Outcome = s.Err.Error(), Failed
	}
	return a
}

// Next is the attempt of delivery d made at now that came to s, with the
// delivery's next step: a failed attempt is Retrying after Delays[n-1]
// (n the attempt's number) while retries remain, and Failed after the
// last, or at once when the receiver answered 410 Gone.
func Next(d Delivery, s Sent, now time.Time) Attempt {
	a := s.Attempt(d.MessageID, d.Type, d.Attempts+1, now)
	if s.Err != nil && a.Number <= len(Delays) && !s.Gone() {
		next := now.Add(Delays[a.Number-1])
		a.Outcome, a.NextAttemptAt = Retrying, &next
	}
	return a
}

// GiveUp is the end of delivery d at now without sending it, for why.
func GiveUp(d Delivery, why string, now time.Time) Attempt {
	return Attempt{MessageID: d.MessageID, Type: d.Type, Number: d.Attempts, Error: why, Outcome: Failed, At: now}
}

// Health is e's failure record after an attempt at now that succeeded
// (ok) or failed: cleared by a success, started by a first failure, and
// the endpoint disabled once it has failed everything for DisableAfter.
// changed is false when there is nothing to write.
func (e Endpoint) Health(ok bool, now time.Time) (_ Endpoint, changed bool) {
	switch {
	case ok && e.FailingSince == nil:
		return e, false
	case ok:
		e.FailingSince = nil
	case e.FailingSince == nil:
		e.FailingSince = &now
	case now.Sub(*e.FailingSince) >= DisableAfter:
		e.Enabled = false
		e.DisabledReason = fmt.Sprintf("every delivery failed since %s", e.FailingSince.Format(time.RFC3339))
	default:
		return e, false
	}
	return e, true
}

// Disabled is e disabled by the service, for reason.
func (e Endpoint) Disabled(reason string) Endpoint {
	e.Enabled, e.DisabledReason = false, reason
	return e
}
