// Package fulfilment is the fulfilment slice's domain core: the order a
// confirmed claim opens, the shipments that carry it, the carrier tracking
// that moves it (EasyPost Tracker events), its cancellation, and the
// inventory units it reserves, consumes or gives back (issue 31).
//
// It holds the slice's domain types (no JSON or attribute tags: the API's
// shape will be shared/httpapi's and shared/wire's, the stored item
// shared/dynamo's), its pure decisions (NewOrder, DecideShipment,
// DecideTrackerUpdate, DecideCancel, the stock moves: state in, a plan or
// the domain error out), the reading of what EasyPost and a warehouse send
// (VerifySignature, DecodeEvent, ParseShipmentCSV) and the ports storage
// will implement (store.go). Each plan is everything one DynamoDB
// transaction writes; docs/decisions/0009-fulfilment.md says how.
//
// The recipient's own rules (its moves, the emails a move schedules) stay
// the recipient slice's: a plan says what it asks of the recipient
// (RecipientMove), and the use case has the recipient slice decide that
// write, committed in the same transaction. This package imports no other
// slice but the wallet, whose Change a cancellation's refund is.
package fulfilment

import (
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Fulfiller is who ships an order: the organization (its own gifts) or the
// service operator (the service catalog's gifts, isDelightloop).
type Fulfiller string

// Fulfillers.
const (
	FulfillerOrganization Fulfiller = "organization"
	FulfillerService      Fulfiller = "service"
)

// FulfillerOf is who ships a gift: the operator ships the service
// catalog's gifts for every organization, an organization its own.
func FulfillerOf(catalogGift bool) Fulfiller {
	if catalogGift {
		return FulfillerService
	}
	return FulfillerOrganization
}

// Status is the state of an order.
type Status string

// Order states. Open, shipped, in_transit and delivered are the way to the
// door, in this order; cancelled (before shipment) and failed (the carrier
// gave up or returned it) are the other ends.
const (
	StatusOpen      Status = "open"
	StatusShipped   Status = "shipped"
	StatusInTransit Status = "in_transit"
	StatusDelivered Status = "delivered"
	StatusCancelled Status = "cancelled"
	StatusFailed    Status = "failed"
)

// Statuses lists every order state: the way to the door, then the other
// ends.
var Statuses = []Status{StatusOpen, StatusShipped, StatusInTransit, StatusDelivered, StatusCancelled, StatusFailed}

// Valid reports whether s is a known order state.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Final reports whether nothing moves the order out of s: delivered,
// cancelled and failed are ends. A late "delivered" after "failed" (or the
// other way round) is not believed over the end already recorded: the
// inventory was settled by the first.
func (s Status) Final() bool {
	return s == StatusDelivered || s == StatusCancelled || s == StatusFailed
}

// Rank orders the states an order passes through: open 0, shipped 1,
// in_transit 2, and the three ends 3. An order moves only to a higher
// rank, so a replayed or late event never takes it back.
func (s Status) Rank() int {
	switch s {
	case StatusOpen:
		return 0
	case StatusShipped:
		return 1
	case StatusInTransit:
		return 2
	case StatusDelivered, StatusCancelled, StatusFailed:
		return 3
	}
	return -1
}

// CanMove reports whether an order may move from one state to another:
// forward only, never out of an end, never to a state it is in.
func CanMove(from, to Status) bool {
	return from.Rank() >= 0 && !from.Final() && to.Rank() > from.Rank()
}

// RecipientStatusFor is the recipient state an order state implies, and
// false when it implies none. Open means the gift is being prepared
// (processing); shipped, in_transit and delivered are the recipient's
// states of the same names. Cancelled and failed move no recipient: the
// journey has no such states (gifting.RecipientJourney), and a recipient
// never moves back, so it keeps the state it had and shows the end
// through its order (shipmentInfo.orderStatus). Decision 0009 proposes a
// recipient state for a cancellation.
func RecipientStatusFor(s Status) (gifting.RecipientStatus, bool) {
	switch s {
	case StatusOpen:
		return gifting.RecipientProcessing, true
	case StatusShipped:
		return gifting.RecipientShipped, true
	case StatusInTransit:
		return gifting.RecipientInTransit, true
	case StatusDelivered:
		return gifting.RecipientDelivered, true
	}
	return "", false
}

// ShipTo is where an order goes: the recipient's name and the shipping
// address it confirmed. Country is an ISO 3166-1 alpha-2 code.
type ShipTo struct {
	Name    string
	Line1   string
	Line2   string
	City    string
	State   string
	Zip     string
	Country string
	Phone   string
}

// Shipment is one parcel of an order: the carrier, its tracking, and what
// tracking last said of it.
type Shipment struct {
	Carrier        string
	TrackingNumber string
	TrackingURL    string
	// Status is the order state this shipment's tracking implies.
	Status              Status
	EstimatedDeliveryAt *time.Time
	// Events are the carrier's scans, oldest first, the last MaxEvents.
	Events []TrackingEvent
	// TrackerUpdatedAt is the tracker's own updated_at of the last
	// tracking event applied: an event no newer is a replay or late.
	TrackerUpdatedAt time.Time
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// TrackingEvent is one scan of a parcel as the carrier reported it.
type TrackingEvent struct {
	At       time.Time
	Status   string
	Message  string
	Location string
}

// Order is a gift on its way to a recipient: opened by the claim that
// confirmed the address, shipped by its fulfiller, tracked to the door.
type Order struct {
	OrderID        string
	OrganizationID string
	CampaignID     string
	RecipientID    string
	GiftID         string
	GiftName       string
	// VariantID and VariantName are the variant chosen, "" for a gift
	// without variants.
	VariantID   string
	VariantName string
	Fulfiller   Fulfiller
	Status      Status
	ShipTo      ShipTo
	// Shipments holds at most MaxShipments; a list, so that split
	// shipments need no change of shape later.
	Shipments []Shipment
	// Credits is what the recipient costs the wallet once claimed (its
	// creditsCharged): what a cancellation gives back.
	Credits      int64
	CancelReason string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	ShippedAt    *time.Time
	DeliveredAt  *time.Time
	CancelledAt  *time.Time
	FailedAt     *time.Time
}

// OperatorShips reports whether the service's operator ships o: the
// order of a service-catalog gift, but never a sandbox's. A sandbox's
// orders are walked by its advance route; none of them reaches the
// operator's queue, or a real gift would go out for free credits.
func (o Order) OperatorShips() bool {
	return o.Fulfiller == FulfillerService && !gifting.IsSandboxOrg(o.OrganizationID)
}

// MovesStock reports whether o reserves, consumes and returns units of
// its gift's stock: every order but a sandbox's of a service-catalog gift,
// whose stock is the live catalog's. A sandbox reads that stock (a gift
// out of stock is out of stock there too) and never changes it.
func (o Order) MovesStock() bool {
	return !(o.Fulfiller == FulfillerService && gifting.IsSandboxOrg(o.OrganizationID))
}

// stockMove is decide's move of stock, the stock of o's gift as read
// (checked to be it), or none for an order that moves no stock
// (MovesStock).
func (o Order) stockMove(stock Stock, decide func(Stock) (StockMove, error)) (StockMove, error) {
	if !o.MovesStock() {
		return StockMove{}, nil
	}
	if err := o.checkStock(stock); err != nil {
		return StockMove{}, err
	}
	return decide(stock)
}

// Shipment is the order's shipment, nil before one is recorded.
func (o *Order) Shipment() *Shipment {
	if len(o.Shipments) == 0 {
		return nil
	}
	return &o.Shipments[len(o.Shipments)-1]
}

// Stored is an order as storage holds it, with the version every write of
// it is conditioned on: of two writers that read the same version, one
// wins and the other decides again.
type Stored struct {
	Order
	Version int64
}

// Next is o, the order s changed, as its next version.
func (s Stored) Next(o Order) Stored { return Stored{Order: o, Version: s.Version + 1} }

// Bounds of an order's parts.
const (
	// MaxShipments is how many shipments an order holds.
	MaxShipments = 1
	// MaxEvents is how many tracking scans a shipment keeps (the latest),
	// so an order item stays small however chatty a carrier is.
	MaxEvents = 30
)

// Change message types of orders and stock (issue 31, item 7): gifting's,
// among gifting.ChangeTypes.
const (
	ChangeOrderCreated   = gifting.ChangeOrderCreated
	ChangeOrderShipped   = gifting.ChangeOrderShipped
	ChangeOrderInTransit = gifting.ChangeOrderInTransit
	ChangeOrderDelivered = gifting.ChangeOrderDelivered
	ChangeOrderCancelled = gifting.ChangeOrderCancelled
	ChangeOrderFailed    = gifting.ChangeOrderFailed
	ChangeGiftLowStock   = gifting.ChangeGiftLowStock
)

// changeOf is the message type of an order reaching status s.
var changeOf = map[Status]string{
	StatusOpen: ChangeOrderCreated, StatusShipped: ChangeOrderShipped, StatusInTransit: ChangeOrderInTransit,
	StatusDelivered: ChangeOrderDelivered, StatusCancelled: ChangeOrderCancelled, StatusFailed: ChangeOrderFailed,
}

// message is the change message of o having reached its status; its data
// is the order as the change left it.
func message(o Order) gifting.Change { return gifting.NewChange(changeOf[o.Status], o) }
