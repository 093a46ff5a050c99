package fulfilment

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// RecipientMove is what an order's change asks of its recipient, written
// in the same transaction as the order. The recipient slice decides the
// write (its moves only go forward and schedule the emails a state
// brings, recipient.DecideMove): the recipient moves to To when To is
// ahead of its state, and keeps its state otherwise (a recipient who
// acknowledged the gift before the carrier reported delivery stays
// acknowledged). Its tracking link and shipmentInfo become these, and its
// creditsCharged drops by Refund.
type RecipientMove struct {
	OrgID       string
	CampaignID  string
	RecipientID string
	// To is the state the order implies (RecipientStatusFor), "" for none.
	To gifting.RecipientStatus
	// At is when the move happened: a delivery's time schedules the
	// post-delivery email.
	At time.Time
	// TrackingLink is the recipient's selectedGift.trackingLink, "" when
	// unchanged.
	TrackingLink string
	// ShipmentInfo is the recipient's shipmentInfo: the order as the
	// recipient and the landing page show it (Order.Info).
	ShipmentInfo map[string]any
	// Refund is the credits a cancellation gives back to the wallet, by
	// which creditsCharged drops.
	Refund int64
}

// moveOf is what o, as just changed at now, asks of its recipient.
func moveOf(o Order, now time.Time) RecipientMove {
	m := RecipientMove{OrgID: o.OrganizationID, CampaignID: o.CampaignID, RecipientID: o.RecipientID,
		At: now, ShipmentInfo: o.Info()}
	if to, ok := RecipientStatusFor(o.Status); ok {
		m.To = to
	}
	if s := o.Shipment(); s != nil {
		m.TrackingLink = s.TrackingURL
	}
	return m
}

// Info is what a recipient shows of its order (its shipmentInfo): the
// order's id and state, and once shipped the carrier, tracking number and
// link and the estimated delivery; the times of the ends it reached and a
// cancellation's reason. Times are gifting.FormatTime's form.
func (o Order) Info() map[string]any {
	info := map[string]any{"orderId": o.OrderID, "orderStatus": string(o.Status), "fulfiller": string(o.Fulfiller)}
	if o.VariantID != "" {
		// The option the recipient chose (a size, a colour): their page
		// and the recipients export show it.
		info["variantId"], info["variantName"] = o.VariantID, o.VariantName
	}
	if s := o.Shipment(); s != nil {
		info["carrier"], info["trackingNumber"] = s.Carrier, s.TrackingNumber
		if s.TrackingURL != "" {
			info["trackingUrl"] = s.TrackingURL
		}
		if s.EstimatedDeliveryAt != nil {
			info["estimatedDeliveryAt"] = gifting.FormatTime(*s.EstimatedDeliveryAt)
		}
	}
	for key, t := range map[string]*time.Time{"shippedAt": o.ShippedAt, "deliveredAt": o.DeliveredAt,
		"cancelledAt": o.CancelledAt, "failedAt": o.FailedAt} {
		if t != nil {
			info[key] = gifting.FormatTime(*t)
		}
	}
	if o.CancelReason != "" {
		info["cancelReason"] = o.CancelReason
	}
	return info
}
