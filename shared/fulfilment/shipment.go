package fulfilment

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/giftcampaign/service/shared/gifting"
)

// ShipmentInput is a shipment as its fulfiller records it (the API's
// body, or a row of a CSV import).
type ShipmentInput struct {
	Carrier        string
	TrackingNumber string
	TrackingURL    string
}

// Bounds of a shipment's fields, in characters.
const (
	MaxCarrier        = 50
	MaxTrackingNumber = 64
)

// trackingPattern is a tracking number: letters and digits, with the
// spaces and hyphens some carriers print in them.
var trackingPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 -]*$`)

// Validate trims the fields and checks them: a carrier (at most
// MaxCarrier characters, one line), a tracking number (letters, digits,
// spaces and hyphens, at most MaxTrackingNumber), and when given an
// http(s) tracking URL. The error is VALIDATION_FAILED naming carrier,
// trackingNumber or trackingUrl.
func (in *ShipmentInput) Validate() error {
	in.Carrier, in.TrackingNumber, in.TrackingURL =
		strings.TrimSpace(in.Carrier), strings.TrimSpace(in.TrackingNumber), strings.TrimSpace(in.TrackingURL)
	var p gifting.Problems
	switch {
	case in.Carrier == "":
		p.Add("carrier", "is required")
	case gifting.TooLong(in.Carrier, MaxCarrier):
		p.Add("carrier", fmt.Sprintf("must be at most %d characters", MaxCarrier))
	case strings.IndexFunc(in.Carrier, unicode.IsControl) >= 0 || CarrierKey(in.Carrier) == "":
		p.Add("carrier", "must name a carrier (letters or digits, one line)")
	}
	switch {
	case in.TrackingNumber == "":
		p.Add("trackingNumber", "is required")
	case gifting.TooLong(in.TrackingNumber, MaxTrackingNumber):
		p.Add("trackingNumber", fmt.Sprintf("must be at most %d characters", MaxTrackingNumber))
	case !trackingPattern.MatchString(in.TrackingNumber):
		p.Add("trackingNumber", "must be letters, digits, spaces or hyphens")
	}
	switch {
	case in.TrackingURL == "":
	case gifting.TooLong(in.TrackingURL, gifting.MaxURLLength):
		p.Add("trackingUrl", fmt.Sprintf("must be at most %d characters", gifting.MaxURLLength))
	case !gifting.ValidURL(in.TrackingURL):
		p.Add("trackingUrl", "must be an http(s) URL")
	}
	return p.Err()
}

// CarrierKey is a carrier's name as shipments are matched by it: lower
// case, letters and digits only, so "FedEx", "fedex" and "Fed-Ex" are one
// carrier, as EasyPost's "FedEx" is the one a fulfiller typed.
func CarrierKey(carrier string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, carrier)
}

// TrackingKey is a tracking number as shipments are matched by it: upper
// case without spaces or hyphens, as carriers print the same number with
// and without them.
func TrackingKey(number string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return unicode.ToUpper(r)
	}, number)
}

// same reports whether in records the shipment s already holds: same
// carrier and tracking number, and no other tracking URL.
func (in ShipmentInput) same(s Shipment) bool {
	return CarrierKey(in.Carrier) == CarrierKey(s.Carrier) && TrackingKey(in.TrackingNumber) == TrackingKey(s.TrackingNumber) &&
		(in.TrackingURL == "" || in.TrackingURL == s.TrackingURL)
}

// ShipmentPlan is a recorded shipment, ready to commit in one
// transaction: the order (conditioned on the version read, and its
// tracking entry on being new), the unit consumed, the recipient's move
// and the order.shipped message. Replay is true when the same shipment
// was recorded before: nothing is to be written, and the order is
// answered as it is.
type ShipmentPlan struct {
	Before    int64
	Order     Stored
	Stock     StockMove
	Recipient RecipientMove
	Messages  []gifting.Change
	Replay    bool
}

// DecideShipment records the shipment in (validated) on cur at now, with
// stock the order's gift (or variant) stock as read: the order and its
// recipient become shipped, the reserved unit leaves the shelf. The same
// shipment again is a Replay; another shipment of an order that shipped
// is a CONFLICT, as is a shipment of a cancelled or failed order.
func DecideShipment(cur Stored, stock Stock, in ShipmentInput, now time.Time) (ShipmentPlan, error) {
	o := cur.Order
	if s := o.Shipment(); s != nil {
		if in.same(*s) {
			return ShipmentPlan{Before: cur.Version, Order: cur, Replay: true}, nil
		}
		return ShipmentPlan{}, gifting.Errorf(gifting.CodeConflict,
			"order %q already shipped with %s, tracking number %s; an order has one shipment, and a different one cannot replace it",
			o.OrderID, s.Carrier, s.TrackingNumber)
	}
	if o.Status != StatusOpen {
		return ShipmentPlan{}, gifting.Errorf(gifting.CodeConflict, "order %q is %s, so it cannot ship", o.OrderID, o.Status)
	}
	move, err := o.stockMove(stock, DecideConsume)
	if err != nil {
		return ShipmentPlan{}, err
	}
	at := now
	o.Shipments = []Shipment{{Carrier: in.Carrier, TrackingNumber: in.TrackingNumber, TrackingURL: in.TrackingURL,
		Status: StatusShipped, Events: []TrackingEvent{}, CreatedAt: now, UpdatedAt: now}}
	o.Status, o.ShippedAt, o.UpdatedAt = StatusShipped, &at, now
	return ShipmentPlan{Before: cur.Version, Order: cur.Next(o), Stock: move, Recipient: moveOf(o, now),
		Messages: []gifting.Change{message(o)}}, nil
}
