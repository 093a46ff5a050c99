package fulfilment

import (
	"fmt"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// MaxCancelReason bounds a cancellation's reason, in characters.
const MaxCancelReason = 500

// CancelPlan is a cancelled order, ready to commit in one transaction:
// the order (conditioned on the version read), its reserved unit back to
// available, the recipient's shipmentInfo and creditsCharged, the
// refund's wallet change with its ledger entry (when the recipient cost
// anything: the use case decides it on the balance, wallet.Decide) and the
// order.cancelled message. Replay is true when the order was cancelled
// before: nothing is to be written.
type CancelPlan struct {
	Before    int64
	Order     Stored
	Stock     StockMove
	Recipient RecipientMove
	// Refund is the wallet change giving the recipient's credits back,
	// nil when it cost none (a free campaign of the organization's own
	// gifts).
	Refund *wallet.Change
	// Wallet is the refund decided on the wallet's balance (wallet.Apply),
	// set by the use case before the commit; nil without a refund.
	Wallet   *wallet.Plan
	Messages []gifting.Change
	Replay   bool
}

// DecideCancel cancels cur for reason at now, with stock the order's gift
// (or variant) stock as read. Only an order not yet shipped can be
// cancelled: a shipped (or later) or failed order is a CONFLICT; one
// cancelled before is a Replay. The recipient's credits come back (a
// wallet refund of Order.Credits) and its unit is released; the recipient
// keeps its state and shows the cancellation through its shipmentInfo
// (RecipientStatusFor). A reason that is empty or longer than
// MaxCancelReason is VALIDATION_FAILED naming reason.
func DecideCancel(cur Stored, stock Stock, reason string, now time.Time) (CancelPlan, error) {
	reason = strings.TrimSpace(reason)
	var p gifting.Problems
	switch {
	case reason == "":
		p.Add("reason", "is required")
	case gifting.TooLong(reason, MaxCancelReason):
		p.Add("reason", fmt.Sprintf("must be at most %d characters", MaxCancelReason))
	}
	if err := p.Err(); err != nil {
		return CancelPlan{}, err
	}
	o := cur.Order
	switch o.Status {
	case StatusCancelled:
		return CancelPlan{Before: cur.Version, Order: cur, Replay: true}, nil
	case StatusOpen:
	case StatusFailed:
		return CancelPlan{}, gifting.Errorf(gifting.CodeConflict, "order %q failed in delivery; it cannot be cancelled", o.OrderID)
	default:
		return CancelPlan{}, gifting.Errorf(gifting.CodeConflict,
			"order %q is %s; only an order that has not shipped can be cancelled", o.OrderID, o.Status)
	}
	move, err := o.stockMove(stock, DecideRelease)
	if err != nil {
		return CancelPlan{}, err
	}
	at := now
	o.Status, o.CancelReason, o.CancelledAt, o.UpdatedAt = StatusCancelled, reason, &at, now
	plan := CancelPlan{Before: cur.Version, Order: cur.Next(o), Stock: move, Recipient: moveOf(o, now),
		Messages: []gifting.Change{message(o)}}
	if o.Credits > 0 {
		plan.Refund = &wallet.Change{OrgID: o.OrganizationID, Type: wallet.Refund, Delta: o.Credits,
			CampaignID: o.CampaignID, RecipientID: o.RecipientID, Reason: "the recipient's order was cancelled: " + reason}
		plan.Recipient.Refund = o.Credits
	}
	return plan, nil
}
