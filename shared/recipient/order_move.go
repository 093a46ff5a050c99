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
	moved := m.To != "" && r.Status != gifting.RecipientExpired && CanMove(r.Status, m.To) &&
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
// order owns (issue 31, item 8): shipped and later states are facts the
// orders endpoints record.
func ErrMoveOwnedByOrder(orderID string, to gifting.RecipientStatus) error {
	where := "POST /api/campaigns/orders/{orderId}/shipments (and the carrier's tracking)"
	if orderID != "" {
		where = "POST /api/campaigns/orders/" + orderID + "/shipments (and the carrier's tracking)"
	}
	return &gifting.Error{Code: gifting.CodeConflict,
		Message: "a recipient becomes " + string(to) + " through its order, not by a status move: record the shipment with " + where,
		Details: map[string]string{"status": "is set by the recipient's order; use " + where}}
}

// orderOwns refuses a status move to to that r's order owns: once a claim
// opened an order, shipped, in_transit and delivered are what the order's
// shipment and tracking say, and acknowledged waits for the delivery
// (CONFLICT naming the orders endpoint). A recipient claimed before orders
// existed has none, and moves as before.
func (r *Recipient) orderOwns(to gifting.RecipientStatus) error {
	orderID, _ := r.ShipmentInfo["orderId"].(string)
	if orderID == "" {
		return nil
	}
	orderStatus, _ := r.ShipmentInfo["orderStatus"].(string)
	switch {
	case to == gifting.RecipientAcknowledged && orderStatus == string(fulfilment.StatusDelivered):
		return nil
	case to.Rank() >= gifting.RecipientShipped.Rank():
		return ErrMoveOwnedByOrder(orderID, to)
	}
	return nil
}
