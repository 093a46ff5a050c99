package fulfilment

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// The EasyPost event types the service acts on: a tracker created, and a
// tracker whose status or scans changed. Their result is the Tracker.
const (
	EventTrackerCreated = "tracker.created"
	EventTrackerUpdated = "tracker.updated"
)

// ErrUnsupportedEvent is behind the error of an event of another type
// (batch.updated, refund.successful, …): the webhook may be subscribed to
// more than trackers, and such an event changes nothing here.
var ErrUnsupportedEvent = errors.New("not a tracker event")

// maxMessage bounds a scan's message and location kept, in characters.
const maxMessage = 200

// event is the part of EasyPost's Event object read: its id, its type
// (description) and its result.
type event struct {
	ID          string          `json:"id"`
	Object      string          `json:"object"`
	Description string          `json:"description"`
	Result      json.RawMessage `json:"result"`
}

// tracker is the part of EasyPost's Tracker object read.
type tracker struct {
	Object          string           `json:"object"`
	TrackingCode    string           `json:"tracking_code"`
	Carrier         string           `json:"carrier"`
	Status          string           `json:"status"`
	PublicURL       string           `json:"public_url"`
	UpdatedAt       string           `json:"updated_at"`
	EstDeliveryDate *string          `json:"est_delivery_date"`
	TrackingDetails []trackingDetail `json:"tracking_details"`
}

type trackingDetail struct {
	Message  string `json:"message"`
	Status   string `json:"status"`
	DateTime string `json:"datetime"`
	Location *struct {
		City    *string `json:"city"`
		State   *string `json:"state"`
		Country *string `json:"country"`
		Zip     *string `json:"zip"`
	} `json:"tracking_location"`
}

// DecodeEvent reads an EasyPost Event (a verified body, VerifySignature)
// of type tracker.created or tracker.updated into the tracker's update.
// A body that is no Event JSON is MALFORMED_REQUEST; an event of another
// type is VALIDATION_FAILED wrapping ErrUnsupportedEvent; a tracker
// without a tracking code, carrier, status or a readable updated_at is
// VALIDATION_FAILED naming the field (result.tracking_code, …). Scans
// whose time cannot be read are dropped, not refused: one odd scan must
// not lose the parcel's status.
func DecodeEvent(body []byte) (TrackerUpdate, error) {
	var ev event
	if err := json.Unmarshal(body, &ev); err != nil {
		return TrackerUpdate{}, gifting.Errorf(gifting.CodeMalformed, "the body is not an EasyPost event: %v", err)
	}
	if ev.Description != EventTrackerCreated && ev.Description != EventTrackerUpdated {
		return TrackerUpdate{}, &gifting.Error{Code: gifting.CodeValidation, Err: ErrUnsupportedEvent,
			Message: "only tracker.created and tracker.updated events are accepted",
			Details: map[string]string{"description": "must be tracker.created or tracker.updated"}}
	}
	var t tracker
	if len(ev.Result) == 0 || json.Unmarshal(ev.Result, &t) != nil || t.Object != "Tracker" {
		return TrackerUpdate{}, &gifting.Error{Code: gifting.CodeValidation, Message: "a tracker event's result must be a Tracker",
			Details: map[string]string{"result": "must be a Tracker object"}}
	}
	u := TrackerUpdate{EventID: ev.ID, TrackingCode: strings.TrimSpace(t.TrackingCode), Carrier: strings.TrimSpace(t.Carrier),
		Status: t.Status, PublicURL: t.PublicURL}
	var p gifting.Problems
	for field, v := range map[string]string{"result.tracking_code": u.TrackingCode, "result.carrier": u.Carrier, "result.status": u.Status} {
		if v == "" {
			p.Add(field, "is required")
		}
	}
	updated, ok := parseTime(t.UpdatedAt)
	if !ok {
		p.Add("result.updated_at", "must be a time such as 2024-05-01T12:00:00Z")
	}
	if err := p.Err(); err != nil {
		return TrackerUpdate{}, err
	}
	u.UpdatedAt = updated
	if t.EstDeliveryDate != nil {
		if est, ok := parseTime(*t.EstDeliveryDate); ok {
			u.EstDeliveryAt = &est
		}
	}
	u.Details = details(t.TrackingDetails)
	return u, nil
}

// details are the scans that have a readable time, in EasyPost's order
// (oldest first).
func details(in []trackingDetail) []TrackingEvent {
	out := make([]TrackingEvent, 0, len(in))
	for _, d := range in {
		at, ok := parseTime(d.DateTime)
		if !ok {
			continue
		}
		e := TrackingEvent{At: at, Status: d.Status, Message: clip(d.Message)}
		if l := d.Location; l != nil {
			var parts []string
			for _, s := range []*string{l.City, l.State, l.Zip, l.Country} {
				if s != nil && strings.TrimSpace(*s) != "" {
					parts = append(parts, strings.TrimSpace(*s))
				}
			}
			e.Location = clip(strings.Join(parts, ", "))
		}
		out = append(out, e)
	}
	return out
}

// parseTime reads EasyPost's times: RFC 3339 (2014-08-21T14:24:00Z), or
// the same without a zone, taken as UTC. The result is UTC.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// clip keeps s to maxMessage characters, so a carrier's text cannot grow
// an order item.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxMessage {
		return string(r[:maxMessage])
	}
	return s
}
