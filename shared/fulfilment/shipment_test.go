package fulfilment_test

import (
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

var ups = fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: "1Z999AA10123456784", TrackingURL: "https://track.example/1Z999"}

// TestDecideShipment: an open order ships: it and its recipient become
// shipped with the tracking link, its reserved unit leaves the shelf,
// order.shipped goes out.
func TestDecideShipment(t *testing.T) {
	t.Parallel()
	p, err := fulfilment.DecideShipment(openOrder(), reservedStock(), ups, at)
	if err != nil {
		t.Fatal(err)
	}
	o := p.Order
	if p.Replay || p.Before != 2 || o.Version != 3 || o.Status != fulfilment.StatusShipped || o.ShippedAt == nil || !o.ShippedAt.Equal(at) {
		t.Fatalf("plan %+v", p)
	}
	if s := o.Shipment(); s == nil || s.Carrier != "UPS" || s.TrackingNumber != ups.TrackingNumber || s.Status != fulfilment.StatusShipped {
		t.Errorf("shipment %+v", s)
	}
	if p.Stock.Kind != fulfilment.MoveConsume || p.Stock.Reserved != -1 || p.Stock.Total != -1 {
		t.Errorf("stock move %+v; want the reserved unit consumed", p.Stock)
	}
	r := p.Recipient
	if r.To != gifting.RecipientShipped || r.TrackingLink != ups.TrackingURL || r.ShipmentInfo["trackingNumber"] != ups.TrackingNumber ||
		r.ShipmentInfo["orderStatus"] != "shipped" {
		t.Errorf("recipient move %+v", r)
	}
	if len(p.Messages) != 1 || p.Messages[0].Type != fulfilment.ChangeOrderShipped {
		t.Errorf("messages %+v; want order.shipped", p.Messages)
	}
}

// TestShipmentSentTwice: the same shipment again (spelled differently,
// without its link) is a replay that writes nothing; a different one is
// a CONFLICT that says what shipped; a cancelled order cannot ship.
func TestShipmentSentTwice(t *testing.T) {
	t.Parallel()
	first, err := fulfilment.DecideShipment(openOrder(), reservedStock(), ups, at)
	if err != nil {
		t.Fatal(err)
	}
	again := fulfilment.ShipmentInput{Carrier: "ups", TrackingNumber: "1z999aa1 0123456784"}
	p, err := fulfilment.DecideShipment(first.Order, reservedStock(), again, at.Add(time.Minute))
	if err != nil || !p.Replay || p.Order.Version != first.Order.Version {
		t.Fatalf("same shipment again: %+v, %v; want a replay of version %d", p, err, first.Order.Version)
	}
	other := fulfilment.ShipmentInput{Carrier: "FedEx", TrackingNumber: "7489"}
	_, err = fulfilment.DecideShipment(first.Order, reservedStock(), other, at)
	wantError(t, err, gifting.CodeConflict, `order "o1" already shipped with UPS, tracking number 1Z999AA10123456784; an order has one shipment, and a different one cannot replace it`)

	cancelled := openOrder()
	cancelled.Status = fulfilment.StatusCancelled
	_, err = fulfilment.DecideShipment(cancelled, reservedStock(), ups, at)
	wantError(t, err, gifting.CodeConflict, `order "o1" is cancelled, so it cannot ship`)
}

func TestShipmentInputValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		in    fulfilment.ShipmentInput
		field string
	}{
		{"valid", fulfilment.ShipmentInput{Carrier: " USPS ", TrackingNumber: " 9400 1000 0000 0000 0000 00 "}, ""},
		{"no carrier", fulfilment.ShipmentInput{TrackingNumber: "1"}, "carrier"},
		{"carrier of punctuation", fulfilment.ShipmentInput{Carrier: "--", TrackingNumber: "1"}, "carrier"},
		{"carrier too long", fulfilment.ShipmentInput{Carrier: strings.Repeat("c", 51), TrackingNumber: "1"}, "carrier"},
		{"no tracking number", fulfilment.ShipmentInput{Carrier: "UPS"}, "trackingNumber"},
		{"tracking number with a slash", fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: "1Z/9"}, "trackingNumber"},
		{"tracking number too long", fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: strings.Repeat("9", 65)}, "trackingNumber"},
		{"bad url", fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: "1", TrackingURL: "javascript:alert(1)"}, "trackingUrl"},
		{"url too long", fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: "1", TrackingURL: "https://t.example/" + strings.Repeat("a", 2040)}, "trackingUrl"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			err := in.Validate()
			if tt.field == "" {
				if err != nil || in.Carrier != "USPS" || in.TrackingNumber != "9400 1000 0000 0000 0000 00" {
					t.Errorf("%v, %+v; want it valid and trimmed", err, in)
				}
				return
			}
			var e *gifting.Error
			if !asError(err, &e) || e.Code != gifting.CodeValidation || e.Details[tt.field] == "" {
				t.Errorf("error %v; want VALIDATION_FAILED naming %s", err, tt.field)
			}
		})
	}
}

// TestTrackingKeys: a carrier and a tracking number match however the
// fulfiller and EasyPost spell them.
func TestTrackingKeys(t *testing.T) {
	t.Parallel()
	if fulfilment.CarrierKey("Fed-Ex") != fulfilment.CarrierKey("FEDEX") || fulfilment.CarrierKey("UPS") == fulfilment.CarrierKey("USPS") {
		t.Error("carrier keys")
	}
	if fulfilment.TrackingKey("1z 999-aa1") != "1Z999AA1" {
		t.Errorf("TrackingKey = %q", fulfilment.TrackingKey("1z 999-aa1"))
	}
}
