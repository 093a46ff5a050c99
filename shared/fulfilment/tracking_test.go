package fulfilment_test

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// shipped is o1 shipped with UPS at at.
func shipped(t *testing.T) fulfilment.Stored {
	t.Helper()
	p, err := fulfilment.DecideShipment(openOrder(), reservedStock(), fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: "1Z999"}, at)
	if err != nil {
		t.Fatal(err)
	}
	return p.Order
}

// update is a tracker event of o1's parcel with status, as EasyPost saw
// it minutes after at.
func update(status string, minutes int) fulfilment.TrackerUpdate {
	seen := at.Add(time.Duration(minutes) * time.Minute)
	u := fulfilment.TrackerUpdate{TrackingCode: "1Z999", Carrier: "UPS", Status: status, UpdatedAt: seen,
		PublicURL: "https://track.easypost.com/djE6", Details: []fulfilment.TrackingEvent{{At: seen.Add(-time.Minute), Status: status, Message: "scan"}}}
	return u
}

func TestStatusFromTracker(t *testing.T) {
	t.Parallel()
	for status, want := range map[string]fulfilment.Status{
		"pre_transit": fulfilment.StatusShipped, "in_transit": fulfilment.StatusInTransit, "out_for_delivery": fulfilment.StatusInTransit,
		"delivered": fulfilment.StatusDelivered, "return_to_sender": fulfilment.StatusFailed, "failure": fulfilment.StatusFailed,
		"error": fulfilment.StatusFailed, "unknown": "", "available_for_pickup": "", "cancelled": "", "teleported": "",
	} {
		got, ok := fulfilment.StatusFromTracker(status)
		if got != want || ok != (want != "") {
			t.Errorf("StatusFromTracker(%q) = %q, %v; want %q", status, got, ok, want)
		}
	}
}

// TestTrackingToTheDoor: in transit with an estimate, then delivered at
// the scan's time (which schedules the post-delivery email), each with
// its message; EasyPost's page becomes the tracking link.
func TestTrackingToTheDoor(t *testing.T) {
	t.Parallel()
	cur := shipped(t)
	u := update("in_transit", 10)
	est := at.Add(48 * time.Hour)
	u.EstDeliveryAt = &est
	p, err := fulfilment.DecideTrackerUpdate(cur, u, at.Add(11*time.Minute))
	if err != nil || p.Unchanged {
		t.Fatalf("%+v, %v", p, err)
	}
	if p.Order.Status != fulfilment.StatusInTransit || p.Recipient.To != gifting.RecipientInTransit ||
		p.Recipient.ShipmentInfo["estimatedDeliveryAt"] != "2026-11-22T10:00:00.000Z" || p.Recipient.TrackingLink != u.PublicURL {
		t.Errorf("in transit: order %s, recipient %+v", p.Order.Status, p.Recipient)
	}
	if len(p.Messages) != 1 || p.Messages[0].Type != fulfilment.ChangeOrderInTransit || p.Stock != nil {
		t.Errorf("messages %+v, stock %+v", p.Messages, p.Stock)
	}
	d := update("delivered", 60)
	d.Details = append([]fulfilment.TrackingEvent{{At: at.Add(20 * time.Minute), Status: "in_transit"}},
		fulfilment.TrackingEvent{At: at.Add(55 * time.Minute), Status: "delivered", Message: "Left at front door"})
	p, err = fulfilment.DecideTrackerUpdate(p.Order, d, at.Add(61*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if p.Order.Status != fulfilment.StatusDelivered || p.Order.DeliveredAt == nil || !p.Order.DeliveredAt.Equal(at.Add(55*time.Minute)) ||
		!p.Recipient.At.Equal(at.Add(55*time.Minute)) || p.Recipient.To != gifting.RecipientDelivered {
		t.Errorf("delivered: %+v, recipient %+v", p.Order.Order, p.Recipient)
	}
	if len(p.Order.Shipment().Events) != 2 || p.Messages[0].Type != fulfilment.ChangeOrderDelivered {
		t.Errorf("events %+v, messages %+v", p.Order.Shipment().Events, p.Messages)
	}
}

// TestTrackingReplaysAndLateEvents: the same event twice, an older event
// after a newer one and a status behind the order's change nothing; an
// event after delivery cannot undo it.
func TestTrackingReplaysAndLateEvents(t *testing.T) {
	t.Parallel()
	cur := shipped(t)
	delivered, err := fulfilment.DecideTrackerUpdate(cur, update("delivered", 30), at.Add(31*time.Minute))
	if err != nil || delivered.Order.Status != fulfilment.StatusDelivered {
		t.Fatalf("%+v, %v", delivered, err)
	}
	for name, u := range map[string]fulfilment.TrackerUpdate{
		"the same event again":          update("delivered", 30),
		"an older event arriving later": update("in_transit", 20),
	} {
		p, err := fulfilment.DecideTrackerUpdate(delivered.Order, u, at.Add(40*time.Minute))
		if err != nil || !p.Unchanged || p.Order.Version != delivered.Order.Version || len(p.Messages) != 0 {
			t.Errorf("%s: %+v, %v; want unchanged", name, p, err)
		}
	}
	late := update("return_to_sender", 90)
	p, err := fulfilment.DecideTrackerUpdate(delivered.Order, late, at.Add(91*time.Minute))
	if err != nil || p.Order.Status != fulfilment.StatusDelivered || len(p.Messages) != 0 || p.Stock != nil || p.Recipient.To != gifting.RecipientDelivered {
		t.Errorf("a failure after delivery: %s, messages %+v, stock %+v; want it still delivered, no message, no stock", p.Order.Status, p.Messages, p.Stock)
	}
	behind := update("pre_transit", 5)
	transit, _ := fulfilment.DecideTrackerUpdate(cur, update("in_transit", 4), at.Add(4*time.Minute))
	p, err = fulfilment.DecideTrackerUpdate(transit.Order, behind, at.Add(6*time.Minute))
	if err != nil || p.Order.Status != fulfilment.StatusInTransit || len(p.Messages) != 0 {
		t.Errorf("pre_transit after in_transit: %s, %+v; want in_transit kept", p.Order.Status, p.Messages)
	}
}

// TestTrackingFailure: a returned parcel fails the order, returns its
// unit to the shelf, says order.failed, and moves no recipient.
func TestTrackingFailure(t *testing.T) {
	t.Parallel()
	p, err := fulfilment.DecideTrackerUpdate(shipped(t), update("return_to_sender", 10), at.Add(11*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if p.Order.Status != fulfilment.StatusFailed || p.Order.FailedAt == nil || p.Recipient.To != "" ||
		p.Recipient.ShipmentInfo["orderStatus"] != "failed" {
		t.Errorf("order %s, recipient %+v", p.Order.Status, p.Recipient)
	}
	if p.Stock == nil || p.Stock.Kind != fulfilment.MoveReturn || p.Stock.VariantID != "M" {
		t.Errorf("stock %+v; want M's unit returned", p.Stock)
	}
	if len(p.Messages) != 1 || p.Messages[0].Type != fulfilment.ChangeOrderFailed {
		t.Errorf("messages %+v", p.Messages)
	}
}

// TestTrackingOfAnotherParcel: an event for another tracking number or
// carrier than the order's shipment, or for an order not shipped, is
// NOT_FOUND.
func TestTrackingOfAnotherParcel(t *testing.T) {
	t.Parallel()
	u := update("in_transit", 10)
	u.TrackingCode = "1Z000"
	_, err := fulfilment.DecideTrackerUpdate(shipped(t), u, at)
	wantError(t, err, gifting.CodeNotFound, `shipment "1Z000" was not found`)
	u = update("in_transit", 10)
	u.Carrier = "USPS"
	_, err = fulfilment.DecideTrackerUpdate(shipped(t), u, at)
	wantError(t, err, gifting.CodeNotFound, "")
	_, err = fulfilment.DecideTrackerUpdate(openOrder(), update("in_transit", 10), at)
	wantError(t, err, gifting.CodeNotFound, "")
}

// TestTrackingLeavesTheReadOrderAlone: a decision works on a copy, so a
// use case deciding again after a failed commit starts from the order as
// read.
func TestTrackingLeavesTheReadOrderAlone(t *testing.T) {
	t.Parallel()
	cur := shipped(t)
	before := cur.Shipment().Events
	u := update("in_transit", 10)
	if _, err := fulfilment.DecideTrackerUpdate(cur, u, at); err != nil {
		t.Fatal(err)
	}
	if s := cur.Shipment(); cur.Status != fulfilment.StatusShipped || s.Status != fulfilment.StatusShipped ||
		len(s.Events) != len(before) || !s.TrackerUpdatedAt.IsZero() {
		t.Errorf("the order read changed: %+v", cur.Order)
	}
}

// TestOrderInfo: what a recipient shows of a delivered order.
func TestOrderInfo(t *testing.T) {
	t.Parallel()
	u := update("delivered", 30)
	est := at.Add(time.Hour)
	u.EstDeliveryAt = &est
	p, err := fulfilment.DecideTrackerUpdate(shipped(t), u, at.Add(31*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"orderId": "o1", "orderStatus": "delivered", "fulfiller": "service", "carrier": "UPS",
		"trackingNumber": "1Z999", "trackingUrl": "https://track.easypost.com/djE6", "estimatedDeliveryAt": "2026-11-20T11:00:00.000Z",
		"shippedAt": "2026-11-20T10:00:00.000Z", "deliveredAt": "2026-11-20T10:29:00.000Z", // the delivered scan's time
		"variantId": "M", "variantName": "Medium"} // the option the recipient chose
	got := p.Order.Info()
	if len(got) != len(want) {
		t.Errorf("info %v; want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("info[%s] = %v; want %v", k, got[k], v)
		}
	}
}
