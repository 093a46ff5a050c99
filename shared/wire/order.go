package wire

import (
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
)

// Order is an order as it leaves the service: the API's answers and the
// order.* messages (the OpenAPI document's Order).
type Order struct {
	OrderID        string     `json:"orderId"`
	OrganizationID string     `json:"organizationId"`
	CampaignID     string     `json:"campaignId"`
	RecipientID    string     `json:"recipientId"`
	GiftID         string     `json:"giftId"`
	GiftName       string     `json:"giftName"`
	VariantID      string     `json:"variantId,omitempty"`
	VariantName    string     `json:"variantName,omitempty"`
	Fulfiller      string     `json:"fulfiller"`
	Status         string     `json:"status"`
	ShipTo         ShipTo     `json:"shipTo"`
	Shipments      []Shipment `json:"shipments"`
	CancelReason   string     `json:"cancelReason,omitempty"`
	CreatedAt      time.Time  `json:"createdAt"`
	UpdatedAt      time.Time  `json:"updatedAt"`
	ShippedAt      *time.Time `json:"shippedAt,omitempty"`
	DeliveredAt    *time.Time `json:"deliveredAt,omitempty"`
	CancelledAt    *time.Time `json:"cancelledAt,omitempty"`
	FailedAt       *time.Time `json:"failedAt,omitempty"`
}

// ShipTo is where an order goes.
type ShipTo struct {
	Name    string `json:"name"`
	Line1   string `json:"line1"`
	Line2   string `json:"line2,omitempty"`
	City    string `json:"city"`
	State   string `json:"state,omitempty"`
	Zip     string `json:"zip"`
	Country string `json:"country"`
	Phone   string `json:"phone,omitempty"`
}

// Shipment is one parcel of an order.
type Shipment struct {
	Carrier             string          `json:"carrier"`
	TrackingNumber      string          `json:"trackingNumber"`
	TrackingURL         string          `json:"trackingUrl,omitempty"`
	Status              string          `json:"status"`
	EstimatedDeliveryAt *time.Time      `json:"estimatedDeliveryAt,omitempty"`
	Events              []TrackingEvent `json:"events"`
	CreatedAt           time.Time       `json:"createdAt"`
	UpdatedAt           time.Time       `json:"updatedAt"`
}

// TrackingEvent is one carrier scan.
type TrackingEvent struct {
	At       time.Time `json:"at"`
	Status   string    `json:"status"`
	Message  string    `json:"message,omitempty"`
	Location string    `json:"location,omitempty"`
}

// LowStock is the data of a gift.low_stock message.
type LowStock struct {
	GiftID    string `json:"giftId"`
	VariantID string `json:"variantId,omitempty"`
	Available int    `json:"available"`
	Threshold int    `json:"threshold"`
}

// OrderOf is o as it leaves the service.
func OrderOf(o fulfilment.Order) Order {
	out := Order{OrderID: o.OrderID, OrganizationID: o.OrganizationID, CampaignID: o.CampaignID, RecipientID: o.RecipientID,
		GiftID: o.GiftID, GiftName: o.GiftName, VariantID: o.VariantID, VariantName: o.VariantName,
		Fulfiller: string(o.Fulfiller), Status: string(o.Status), ShipTo: ShipTo(o.ShipTo), Shipments: []Shipment{},
		CancelReason: o.CancelReason, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
		ShippedAt: o.ShippedAt, DeliveredAt: o.DeliveredAt, CancelledAt: o.CancelledAt, FailedAt: o.FailedAt}
	for _, s := range o.Shipments {
		sh := Shipment{Carrier: s.Carrier, TrackingNumber: s.TrackingNumber, TrackingURL: s.TrackingURL,
			Status: string(s.Status), EstimatedDeliveryAt: s.EstimatedDeliveryAt, Events: []TrackingEvent{},
			CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
		for _, e := range s.Events {
			sh.Events = append(sh.Events, TrackingEvent(e))
		}
		out.Shipments = append(out.Shipments, sh)
	}
	return out
}

// OrdersOf is each of orders as it leaves the service.
func OrdersOf(orders []fulfilment.Order) []Order {
	out := make([]Order, len(orders))
	for i, o := range orders {
		out[i] = OrderOf(o)
	}
	return out
}
