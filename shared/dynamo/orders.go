package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// Orders' storage (shared/fulfilment decides; decision 0009). An order is
// the item PK=ORG#<org>, SK=ORDER#<orderId> (the id a ULID, so the table's
// own partition lists them by creation), carrying two index entries that
// the same write moves with its status: the Slim entry
// LPK=ORG#<org>#ORD#<status>, LSK=<orderId> (one status, newest first) and
// the Order index entry OPK=ORG#<org>#ORDC#<campaignId>,
// OSK=<status>#<orderId> (one campaign, or one campaign and status, by a
// begins_with). A shipment's tracking number has a small item of its own,
// SK=TRACK#<carrierKey>#<trackingKey>, naming the order.

// Key parts of orders.
const (
	orderPrefix = "ORDER#"
	trackPrefix = "TRACK#"
)

func orderSK(id string) string { return orderPrefix + id }
func ordersLPK(org string, st fulfilment.Status) string {
	return orgPK(org) + "#ORD#" + string(st)
}
func orderCampaignOPK(org, campaign string) string { return orgPK(org) + "#ORDC#" + campaign }
func orderOSK(st fulfilment.Status, id string) string {
	return string(st) + "#" + id
}
func trackSK(carrierKey, trackingKey string) string {
	return trackPrefix + carrierKey + "#" + trackingKey
}

// shipToItem is an order's address as stored (the API's names).
type shipToItem struct {
	Name    string `json:"name,omitempty"`
	Line1   string `json:"line1"`
	Line2   string `json:"line2,omitempty"`
	City    string `json:"city"`
	State   string `json:"state,omitempty"`
	Zip     string `json:"zip"`
	Country string `json:"country"`
	Phone   string `json:"phone,omitempty"`
}

// trackingEventItem is one carrier scan as stored.
type trackingEventItem struct {
	At       time.Time `json:"at"`
	Status   string    `json:"status"`
	Message  string    `json:"message,omitempty"`
	Location string    `json:"location,omitempty"`
}

// shipmentItem is a shipment as stored.
type shipmentItem struct {
	Carrier             string              `json:"carrier"`
	TrackingNumber      string              `json:"trackingNumber"`
	TrackingURL         string              `json:"trackingUrl,omitempty"`
	Status              string              `json:"status"`
	EstimatedDeliveryAt *time.Time          `json:"estimatedDeliveryAt,omitempty"`
	Events              []trackingEventItem `json:"events"`
	TrackerUpdatedAt    time.Time           `json:"trackerUpdatedAt"`
	CreatedAt           time.Time           `json:"createdAt"`
	UpdatedAt           time.Time           `json:"updatedAt"`
}

// orderItem is an order as stored, with its version.
type orderItem struct {
	OrderID        string         `json:"orderId"`
	OrganizationID string         `json:"organizationId"`
	CampaignID     string         `json:"campaignId"`
	RecipientID    string         `json:"recipientId"`
	GiftID         string         `json:"giftId"`
	GiftName       string         `json:"giftName,omitempty"`
	VariantID      string         `json:"variantId,omitempty"`
	VariantName    string         `json:"variantName,omitempty"`
	Fulfiller      string         `json:"fulfiller"`
	Status         string         `json:"status"`
	ShipTo         shipToItem     `json:"shipTo"`
	Shipments      []shipmentItem `json:"shipments"`
	Credits        int64          `json:"credits"`
	CancelReason   string         `json:"cancelReason,omitempty"`
	CreatedAt      time.Time      `json:"createdAt"`
	UpdatedAt      time.Time      `json:"updatedAt"`
	ShippedAt      *time.Time     `json:"shippedAt,omitempty"`
	DeliveredAt    *time.Time     `json:"deliveredAt,omitempty"`
	CancelledAt    *time.Time     `json:"cancelledAt,omitempty"`
	FailedAt       *time.Time     `json:"failedAt,omitempty"`
	Ver            int64          `json:"ver"`
}

// orderItemOf is o as stored.
func orderItemOf(so fulfilment.Stored) orderItem {
	o := so.Order
	st := o.ShipTo
	it := orderItem{OrderID: o.OrderID, OrganizationID: o.OrganizationID, CampaignID: o.CampaignID, RecipientID: o.RecipientID,
		GiftID: o.GiftID, GiftName: o.GiftName, VariantID: o.VariantID, VariantName: o.VariantName,
		Fulfiller: string(o.Fulfiller), Status: string(o.Status), Shipments: []shipmentItem{},
		ShipTo:  shipToItem{Name: st.Name, Line1: st.Line1, Line2: st.Line2, City: st.City, State: st.State, Zip: st.Zip, Country: st.Country, Phone: st.Phone},
		Credits: o.Credits, CancelReason: o.CancelReason, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt,
		ShippedAt: o.ShippedAt, DeliveredAt: o.DeliveredAt, CancelledAt: o.CancelledAt, FailedAt: o.FailedAt, Ver: so.Version}
	for _, s := range o.Shipments {
		si := shipmentItem{Carrier: s.Carrier, TrackingNumber: s.TrackingNumber, TrackingURL: s.TrackingURL, Status: string(s.Status),
			EstimatedDeliveryAt: s.EstimatedDeliveryAt, Events: []trackingEventItem{}, TrackerUpdatedAt: s.TrackerUpdatedAt,
			CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
		for _, e := range s.Events {
			si.Events = append(si.Events, trackingEventItem(e))
		}
		it.Shipments = append(it.Shipments, si)
	}
	return it
}

// stored is the order it holds.
func (it orderItem) stored() fulfilment.Stored {
	st := it.ShipTo
	o := fulfilment.Order{OrderID: it.OrderID, OrganizationID: it.OrganizationID, CampaignID: it.CampaignID,
		RecipientID: it.RecipientID, GiftID: it.GiftID, GiftName: it.GiftName, VariantID: it.VariantID, VariantName: it.VariantName,
		Fulfiller: fulfilment.Fulfiller(it.Fulfiller), Status: fulfilment.Status(it.Status), Shipments: []fulfilment.Shipment{},
		ShipTo:  fulfilment.ShipTo{Name: st.Name, Line1: st.Line1, Line2: st.Line2, City: st.City, State: st.State, Zip: st.Zip, Country: st.Country, Phone: st.Phone},
		Credits: it.Credits, CancelReason: it.CancelReason, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt,
		ShippedAt: it.ShippedAt, DeliveredAt: it.DeliveredAt, CancelledAt: it.CancelledAt, FailedAt: it.FailedAt}
	for _, s := range it.Shipments {
		sh := fulfilment.Shipment{Carrier: s.Carrier, TrackingNumber: s.TrackingNumber, TrackingURL: s.TrackingURL,
			Status: fulfilment.Status(s.Status), EstimatedDeliveryAt: s.EstimatedDeliveryAt, Events: []fulfilment.TrackingEvent{},
			TrackerUpdatedAt: s.TrackerUpdatedAt, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
		for _, e := range s.Events {
			sh.Events = append(sh.Events, fulfilment.TrackingEvent(e))
		}
		o.Shipments = append(o.Shipments, sh)
	}
	return fulfilment.Stored{Order: o, Version: it.Ver}
}

// orderAttrs is the item of so with its keys and index entries.
func orderAttrs(so fulfilment.Stored) (item, error) {
	o := so.Order
	keys := map[string]string{
		"PK": orgPK(o.OrganizationID), "SK": orderSK(o.OrderID),
		"LPK": ordersLPK(o.OrganizationID, o.Status), "LSK": o.OrderID,
		"OPK": orderCampaignOPK(o.OrganizationID, o.CampaignID), "OSK": orderOSK(o.Status, o.OrderID),
	}
	// Every write of an order puts it whole, so the operator's keys
	// (orders_service.go) come and go with its status in that same write.
	maps.Copy(keys, serviceOrderKeys(o))
	return withKey(orderItemOf(so), keys)
}

// decodeOrder reads an order's item.
func decodeOrder(it item) (fulfilment.Stored, error) {
	var oi orderItem
	if err := unmarshal(it, &oi); err != nil {
		return fulfilment.Stored{}, err
	}
	return oi.stored(), nil
}

// decodeOrders reads orders' items.
func decodeOrders(items []item) ([]fulfilment.Order, error) {
	orders := make([]fulfilment.Order, 0, len(items))
	for _, it := range items {
		so, err := decodeOrder(it)
		if err != nil {
			return nil, err
		}
		orders = append(orders, so.Order)
	}
	return orders, nil
}

// Order reads one order of orgID, strongly consistent (fulfilment.Orders).
func (s *Store) Order(ctx context.Context, orgID, orderID string) (fulfilment.Stored, error) {
	if orderID == "" {
		return fulfilment.Stored{}, fulfilment.ErrNoOrder
	}
	it, err := s.getItem(ctx, orgPK(orgID), orderSK(orderID))
	if err != nil || it == nil {
		return fulfilment.Stored{}, errors.Join(err, orNoOrder(err))
	}
	return decodeOrder(it)
}

// orNoOrder is ErrNoOrder when the read itself did not fail.
func orNoOrder(err error) error {
	if err != nil {
		return nil
	}
	return fulfilment.ErrNoOrder
}

// OrderByTracking reads the order of orgID shipped with that carrier and
// tracking number (fulfilment.Orders): its tracking item, then the order.
func (s *Store) OrderByTracking(ctx context.Context, orgID, carrierKey, trackingKey string) (fulfilment.Stored, error) {
	it, err := s.getItem(ctx, orgPK(orgID), trackSK(carrierKey, trackingKey))
	if err != nil {
		return fulfilment.Stored{}, err
	}
	if it == nil {
		return fulfilment.Stored{}, fulfilment.ErrNoOrder
	}
	return s.Order(ctx, orgID, attrS(it, "orderId"))
}

// Stock reads the stock of a gift of orgID, its own or else the catalog's
// (fulfilment.Orders). Variants' stock (vinv) is read when variantID is
// not "".
func (s *Store) Stock(ctx context.Context, orgID, giftID, variantID string) (fulfilment.Stock, error) {
	got, err := s.batchGet(ctx, []item{key(orgPK(orgID), giftSK(giftID)), key(orgPK(gifting.CatalogOrgID), giftSK(giftID))})
	if err != nil {
		return fulfilment.Stock{}, err
	}
	var found item
	for _, it := range got {
		if found == nil || attrS(it, "PK") == orgPK(orgID) {
			found = it
		}
	}
	st := fulfilment.Stock{GiftID: giftID, VariantID: variantID}
	if found == nil {
		return st, fmt.Errorf("stock of gift %s: %w", giftID, fulfilment.ErrNoOrder)
	}
	var inv struct {
		Inventory gifting.Inventory            `json:"inventory"`
		Variants  map[string]gifting.Inventory `json:"vinv"`
		Threshold *int                         `json:"lowStockThreshold"`
	}
	if err := unmarshal(found, &inv); err != nil {
		return st, err
	}
	c := inv.Inventory
	if variantID != "" {
		c = inv.Variants[variantID]
	}
	st.Total, st.Available, st.Reserved, st.LowStockAt = c.Total, c.Available, c.Reserved, inv.Threshold
	return st, nil
}

// getItem reads one item strongly consistent, nil when there is none.
func (s *Store) getItem(ctx context.Context, pk, sk string) (item, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: key(pk, sk), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("get %s %s: %w", keyForError(pk), keyForError(sk), err)
	}
	return out.Item, nil
}
