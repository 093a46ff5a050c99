package fulfilment

import (
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// TrackerUpdate is what an EasyPost tracker event says of a parcel
// (DecodeEvent): its tracking code and carrier, its status, when the
// tracker last changed, the estimated delivery and the scans.
type TrackerUpdate struct {
	// EventID is the EasyPost event's id (evt_…), for logs.
	EventID      string
	TrackingCode string
	Carrier      string
	// Status is EasyPost's tracker status (StatusFromTracker).
	Status    string
	PublicURL string
	// UpdatedAt is the tracker's updated_at: which of two events is the
	// later view of the parcel.
	UpdatedAt     time.Time
	EstDeliveryAt *time.Time
	Details       []TrackingEvent
}

// StatusFromTracker is the order state an EasyPost tracker status moves
// an order to, and false for a status that moves none: pre_transit
// (a label exists) is shipped; in_transit and out_for_delivery are
// in_transit; delivered is delivered; return_to_sender, failure and error
// are failed. unknown, available_for_pickup, cancelled and any status
// EasyPost adds later move nothing (their scans are still kept):
// available_for_pickup waits for the recipient, and a cancelled tracker
// says nothing about the parcel.
func StatusFromTracker(status string) (Status, bool) {
	switch status {
	case "pre_transit":
		return StatusShipped, true
	case "in_transit", "out_for_delivery":
		return StatusInTransit, true
	case "delivered":
		return StatusDelivered, true
	case "return_to_sender", "failure", "error":
		return StatusFailed, true
	}
	return "", false
}

// TrackingPlan is a tracker event applied to an order, ready to commit in
// one transaction: the order (conditioned on the version read), with a
// failed delivery the unit returned to the shelf, the recipient's move
// and the order's message when its state moved. Unchanged is true when
// the event tells nothing new (a replay, a late event, the same view
// again): nothing is to be written.
type TrackingPlan struct {
	Before    int64
	Order     Stored
	Stock     *StockMove
	Recipient RecipientMove
	Messages  []gifting.Change
	Unchanged bool
}

// DecideTrackerUpdate applies u to cur, the order whose shipment it
// tracks, at now. An event is applied only when its tracker changed
// after the last one applied (UpdatedAt), so the same event twice, or an
// older one arriving late, changes nothing; and the order moves only
// forward (CanMove), so no event takes it or its recipient back. A newer
// view updates the scans, the estimated delivery and the tracking link
// (EasyPost's public page when the fulfiller gave none). A shipment of
// another carrier or number is NOT_FOUND: the lookup found the wrong
// order.
func DecideTrackerUpdate(cur Stored, u TrackerUpdate, now time.Time) (TrackingPlan, error) {
	o := cur.Order
	o.Shipments = slices.Clone(o.Shipments)
	s := o.Shipment()
	if s == nil || CarrierKey(s.Carrier) != CarrierKey(u.Carrier) || TrackingKey(s.TrackingNumber) != TrackingKey(u.TrackingCode) {
		return TrackingPlan{}, gifting.NotFound("shipment", u.TrackingCode)
	}
	unchanged := TrackingPlan{Before: cur.Version, Order: cur, Unchanged: true}
	if !u.UpdatedAt.After(s.TrackerUpdatedAt) {
		return unchanged, nil
	}
	changed := s.setView(u)
	s.TrackerUpdatedAt, s.UpdatedAt = u.UpdatedAt, now
	at := now
	to, ok := StatusFromTracker(u.Status)
	moved := ok && CanMove(o.Status, to)
	if moved {
		o.Status, s.Status = to, to
		switch to {
		case StatusDelivered:
			at = deliveredAt(u, now)
			o.DeliveredAt = &at
		case StatusFailed:
			o.FailedAt = &at
		}
	}
	if !changed && !moved {
		// Only the tracker's time differs. Not recording it costs nothing:
		// an event older than this one but newer than the view stored
		// holds the same view.
		return unchanged, nil
	}
	o.UpdatedAt = now
	p := TrackingPlan{Before: cur.Version, Order: cur.Next(o), Recipient: moveOf(o, at)}
	if moved {
		p.Messages = []gifting.Change{message(o)}
		if to == StatusFailed && o.MovesStock() {
			m := DecideReturn(o.GiftID, o.VariantID)
			p.Stock = &m
		}
	}
	return p, nil
}

// setView takes u's view of the parcel into s: its scans (the latest
// MaxEvents), estimated delivery and, when s has none, EasyPost's public
// tracking page. It reports whether any of them changed.
func (s *Shipment) setView(u TrackerUpdate) bool {
	events := u.Details
	if len(events) > MaxEvents {
		events = events[len(events)-MaxEvents:]
	}
	events = slices.Clone(events)
	changed := !slices.EqualFunc(events, s.Events, func(a, b TrackingEvent) bool {
		return a.At.Equal(b.At) && a.Status == b.Status && a.Message == b.Message && a.Location == b.Location
	})
	s.Events = events
	if !equalTime(s.EstimatedDeliveryAt, u.EstDeliveryAt) {
		s.EstimatedDeliveryAt, changed = u.EstDeliveryAt, true
	}
	if s.TrackingURL == "" && u.PublicURL != "" && gifting.ValidURL(u.PublicURL) {
		s.TrackingURL, changed = u.PublicURL, true
	}
	return changed
}

// deliveredAt is when u says the parcel was delivered: the time of its
// last delivered scan, or now when it lists none (or one in the future,
// which a wrong carrier clock can report).
func deliveredAt(u TrackerUpdate, now time.Time) time.Time {
	for i := len(u.Details) - 1; i >= 0; i-- {
		if d := u.Details[i]; d.Status == "delivered" && !d.At.IsZero() && !d.At.After(now) {
			return d.At
		}
	}
	return now
}

func equalTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}
