package recipient

import (
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// OrderStore is what the orders' use cases need of storage besides the
// recipient's: the orders and their stock, and the commit of each order
// change with the recipient's write it asks for (fulfilment.Commits).
type OrderStore interface {
	fulfilment.Orders
	fulfilment.ServiceOrders
	fulfilment.Commits[Update]
}

// DecideOrderMove is the write of cur that an order's change asks for
// (m): the recipient moves to m.To when that is ahead of its state
// (forward only, scheduling the emails the state brings: a delivery
// schedules postDelivery from m.At), and keeps its state otherwise (a
// recipient who acknowledged its gift before the carrier said delivered
// stays acknowledged; an expired one never moves). Its tracking link and
// shipmentInfo become the order's, and its creditsCharged drops by a
// refund. A move counts in its campaign and is announced
// (recipient.status_changed).
func DecideOrderMove(orgID string, cur Stored, m fulfilment.RecipientMove) Update {
	r := cur.Recipient
	from := r.Status
	moved := m.To != "" && !r.Status.Ended() && CanMove(r.Status, m.To) &&
		r.Advance(m.To, m.At, cur.Delays) == nil
	if m.TrackingLink != "" {
		r.SelectedGift.TrackingLink = m.TrackingLink
	}
	r.ShipmentInfo = m.ShipmentInfo
	r.CreditsCharged -= m.Refund
	r.UpdatedAt = m.At
	u := updateOf(orgID, cur, r)
	if moved {
		msg := statusChanged(r, from)
		u.Campaign, u.From, u.Message = CampaignStatusMove, from, &msg
	}
	return u
}

// ErrMoveOwnedByOrder is the CONFLICT of a status move the recipient's
// order contradicts (issue 31, item 8): a recipient ships when its order
// does, through the orders endpoints.
func ErrMoveOwnedByOrder(orderID string, to gifting.RecipientStatus) error {
	where := "POST /api/campaigns/orders/{orderId}/shipments (and the carrier's tracking)"
	if orderID != "" {
		where = "POST /api/campaigns/orders/" + orderID + "/shipments (and the carrier's tracking)"
	}
	return &gifting.Error{Code: gifting.CodeConflict,
		Message: "the recipient's order has not shipped, so the recipient cannot be " + string(to) + ": record the shipment with " + where,
		Details: map[string]string{"status": "is set by the recipient's order; use " + where}}
}

// orderOwns refuses a status move to to that r's order contradicts: once
// a claim opened an order, the recipient reaches shipped (and anything
// after it) only once the order shipped (POST …/orders/{id}/shipments); a
// cancelled or failed order never ships. After the shipment, later moves
// are allowed (a fulfiller without carrier tracking records the
// delivery). CONFLICT naming the orders endpoint. A recipient claimed
// before orders existed has none, and moves as before.
func (r *Recipient) orderOwns(to gifting.RecipientStatus) error {
	orderID, _ := r.ShipmentInfo["orderId"].(string)
	if orderID == "" || to.Rank() < gifting.RecipientShipped.Rank() {
		return nil
	}
	switch st, _ := r.ShipmentInfo["orderStatus"].(string); fulfilment.Status(st) {
	case fulfilment.StatusShipped, fulfilment.StatusInTransit, fulfilment.StatusDelivered:
		return nil
	}
	return ErrMoveOwnedByOrder(orderID, to)
}
