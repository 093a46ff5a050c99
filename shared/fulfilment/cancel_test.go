package fulfilment_test

import (
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// TestDecideCancel: an open order is cancelled: its recipient's 40
// credits come back as a refund, its unit is released, the recipient
// keeps its state and shows the cancellation, order.cancelled goes out;
// the refund decided on a wallet leaves the ledger summing to the
// balance.
func TestDecideCancel(t *testing.T) {
	t.Parallel()
	p, err := fulfilment.DecideCancel(openOrder(), reservedStock(), "  the recipient left the company ", at)
	if err != nil {
		t.Fatal(err)
	}
	o := p.Order
	if p.Replay || p.Before != 2 || o.Version != 3 || o.Status != fulfilment.StatusCancelled ||
		o.CancelReason != "the recipient left the company" || o.CancelledAt == nil {
		t.Fatalf("order %+v", o)
	}
	if p.Stock.Kind != fulfilment.MoveRelease || p.Stock.Available != 1 || p.Stock.Reserved != -1 {
		t.Errorf("stock %+v; want the unit released", p.Stock)
	}
	want := wallet.Change{OrgID: "acme", Type: wallet.Refund, Delta: 40, CampaignID: "C1", RecipientID: "R1",
		Reason: "the recipient's order was cancelled: the recipient left the company"}
	if p.Refund == nil || *p.Refund != want {
		t.Fatalf("refund %+v; want %+v", p.Refund, want)
	}
	r := p.Recipient
	if r.To != "" || r.Refund != 40 || r.ShipmentInfo["orderStatus"] != "cancelled" || r.ShipmentInfo["cancelReason"] != o.CancelReason {
		t.Errorf("recipient move %+v", r)
	}
	if len(p.Messages) != 1 || p.Messages[0].Type != fulfilment.ChangeOrderCancelled {
		t.Errorf("messages %+v", p.Messages)
	}
	// The wallet held 100 after a 140 top-up and the recipient's 40 debit.
	plan, err := wallet.Decide(100, *p.Refund, "e3", at)
	if err != nil {
		t.Fatal(err)
	}
	check := wallet.LedgerCheck{Balance: plan.After}
	for _, e := range []wallet.Entry{{EntryID: "e1", Type: wallet.TopUp, Amount: 140}, {EntryID: "e2", Type: wallet.Debit, Amount: 40}, plan.Entry} {
		check.Add(e)
	}
	if res := check.Result(); !res.OK || plan.After != 140 {
		t.Errorf("after the refund: balance %d, %+v; want 140 and the ledger summing to it", plan.After, res)
	}
}

// TestCancelRefusals: a shipped or failed order cannot be cancelled; a
// second cancel is a replay; a free recipient gets no refund; a reason
// is required and bounded.
func TestCancelRefusals(t *testing.T) {
	t.Parallel()
	shippedOrder := openOrder()
	shippedOrder.Status = fulfilment.StatusInTransit
	_, err := fulfilment.DecideCancel(shippedOrder, reservedStock(), "too late", at)
	wantError(t, err, gifting.CodeConflict, `order "o1" is in_transit; only an order that has not shipped can be cancelled`)

	failed := openOrder()
	failed.Status = fulfilment.StatusFailed
	_, err = fulfilment.DecideCancel(failed, reservedStock(), "lost", at)
	wantError(t, err, gifting.CodeConflict, `order "o1" failed in delivery; it cannot be cancelled`)

	first, err := fulfilment.DecideCancel(openOrder(), reservedStock(), "no longer needed", at)
	if err != nil {
		t.Fatal(err)
	}
	again, err := fulfilment.DecideCancel(first.Order, reservedStock(), "no longer needed", at)
	if err != nil || !again.Replay || again.Refund != nil || again.Order.Version != first.Order.Version {
		t.Errorf("second cancel: %+v, %v; want a replay refunding nothing", again, err)
	}

	free := openOrder()
	free.Credits = 0
	p, err := fulfilment.DecideCancel(free, reservedStock(), "no longer needed", at)
	if err != nil || p.Refund != nil || p.Recipient.Refund != 0 {
		t.Errorf("free recipient: %+v, %v; want no refund", p, err)
	}

	for _, reason := range []string{"   ", strings.Repeat("r", fulfilment.MaxCancelReason+1)} {
		_, err := fulfilment.DecideCancel(openOrder(), reservedStock(), reason, at)
		var e *gifting.Error
		if !asError(err, &e) || e.Code != gifting.CodeValidation || e.Details["reason"] == "" {
			t.Errorf("reason of %d characters: %v; want VALIDATION_FAILED naming reason", len(reason), err)
		}
	}
}
