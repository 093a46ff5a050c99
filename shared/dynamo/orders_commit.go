package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
)

// The commits of an order's changes (fulfilment.Commits, with the
// recipient slice's recipient.Update as the recipient's write): each in
// one transaction, conditioned as decision 0009 says.

// Names of the conditioned items of an order's transaction.
const (
	condOrder    = "order"    // the order new, or at the version read
	condStock    = "stock"    // the gift's counts in the move's range
	condTracking = "tracking" // the tracking number no other order's
)

// orderWrite is what one order transaction writes.
type orderWrite struct {
	order fulfilment.Stored
	// before is the version the order was read at; 0 puts it new.
	before int64
	stock  fulfilment.StockMove
	// tracking puts the shipment's tracking entry, new.
	tracking bool
	r        recipient.Update
	// credits is what the campaign's creditsSpent drops by (a refund).
	credits  int64
	messages []gifting.Change
}

// CommitShipment writes a shipment's plan with the recipient's update
// (fulfilment.Commits).
func (s *Store) CommitShipment(ctx context.Context, p fulfilment.ShipmentPlan, r recipient.Update) error {
	return s.commitOrder(ctx, orderWrite{order: p.Order, before: p.Before, stock: p.Stock, tracking: true, r: r,
		messages: p.Messages}, nil)
}

// CommitTracking writes a tracking event's plan with the recipient's
// update (fulfilment.Commits).
func (s *Store) CommitTracking(ctx context.Context, p fulfilment.TrackingPlan, r recipient.Update) error {
	w := orderWrite{order: p.Order, before: p.Before, r: r, messages: p.Messages}
	if p.Stock != nil {
		w.stock = *p.Stock
	}
	return s.commitOrder(ctx, w, nil)
}

// CommitCancel writes a cancellation's plan with the recipient's update
// and, with a refund, its wallet plan and ledger entry, which then holds
// the change record (fulfilment.Commits).
func (s *Store) CommitCancel(ctx context.Context, p fulfilment.CancelPlan, r recipient.Update) error {
	return s.commitOrder(ctx, orderWrite{order: p.Order, before: p.Before, stock: p.Stock, r: r,
		credits: p.Recipient.Refund, messages: p.Messages}, p.Wallet)
}

// commitOrder writes w in one transaction: through the wallet's
// commitPlan when w refunds (its update and ledger entry first, the entry
// holding the change record), else with a change record of its own.
func (s *Store) commitOrder(ctx context.Context, w orderWrite, refund *wallet.Plan) error {
	tx, err := s.orderTxn(w)
	if err != nil {
		return err
	}
	msgs := slices.Clone(w.messages)
	if w.r.Message != nil {
		msgs = append(msgs, *w.r.Message)
	}
	// The month's report counts the recipient's move (delivered, …).
	var events map[string]int64
	if w.r.Campaign == recipient.CampaignStatusMove {
		events = campaign.MoveEvents(w.r.From, w.r.Recipient.Status, 1)
	}
	if refund != nil {
		return s.commitPlan(ctx, *refund, planWrites{items: tx.items, changes: msgs, events: events,
			cancelled: func(reasons []types.CancellationReason) error { return orderCancelled(&tx, reasons) }})
	}
	// A tracking event that only adds scans sends no message: no change
	// record to write either.
	if len(msgs) > 0 {
		change, err := s.changePut(w.order.OrganizationID, msgs...)
		if err != nil {
			return err
		}
		tx.add("", change)
	}
	tx.add("", s.eventsAdd(w.order.OrganizationID, events)...)
	err = s.transactRetrying(ctx, tx.items)
	switch {
	case err == nil:
		return nil
	case retryable(err):
		return fmt.Errorf("%w: %w", fulfilment.ErrContended, err)
	}
	if mapped := orderCancelled(&tx, cancellationReasons(err)); mapped != nil {
		return mapped
	}
	return fmt.Errorf("commit order: %w", err)
}

// orderTxn is w's items but the change record: the order, the stock move,
// the tracking entry, the recipient and its campaign's counters.
func (s *Store) orderTxn(w orderWrite) (txn, error) {
	var tx txn
	o := w.order.Order
	it, err := orderAttrs(w.order)
	if err != nil {
		return tx, err
	}
	put := &types.Put{TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")}
	if w.before > 0 {
		put.ConditionExpression, put.ExpressionAttributeValues = aws.String("ver = :ver"), item{":ver": num(w.before)}
	}
	tx.add(condOrder, types.TransactWriteItem{Put: put})
	if w.stock.Kind != "" {
		tx.add(condStock, s.stockUpdate(o.OrganizationID, o.Fulfiller == fulfilment.FulfillerService, w.stock))
	}
	if sh := o.Shipment(); w.tracking && sh != nil {
		tx.add(condTracking, types.TransactWriteItem{Put: &types.Put{TableName: &s.table,
			Item: item{"PK": str(orgPK(o.OrganizationID)),
				"SK":      str(trackSK(fulfilment.CarrierKey(sh.Carrier), fulfilment.TrackingKey(sh.TrackingNumber))),
				"orderId": str(o.OrderID), "createdAt": str(gifting.FormatTime(sh.CreatedAt))},
			ConditionExpression: aws.String("attribute_not_exists(PK)")}})
	}
	rit, err := s.recipientItem(w.r.OrgID, w.r.Recipient)
	if err != nil {
		return tx, err
	}
	tx.add(condRecipient, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: rit,
		ConditionExpression: aws.String("ver = :ver"), ExpressionAttributeValues: item{":ver": num(w.r.Before)}}})
	if up := s.orderCampaignUpdate(w); up != nil {
		tx.add(condCampaign, *up)
	}
	return tx, nil
}

// orderCampaignUpdate moves the recipient in its campaign's counters
// and drops its creditsSpent by a refund; nil when neither happens.
func (s *Store) orderCampaignUpdate(w orderWrite) *types.TransactWriteItem {
	moved := w.r.Campaign == recipient.CampaignStatusMove
	if !moved && w.credits == 0 {
		return nil
	}
	r := w.r.Recipient
	expr, names, values := "SET liveData.creditsSpent = liveData.creditsSpent - :refund, "+refundedExpr, map[string]string{},
		item{":refund": num(w.credits), ":zero": num(0)}
	if moved {
		expr += ", liveData.statusCounts.#from = liveData.statusCounts.#from - :one, liveData.statusCounts.#to = liveData.statusCounts.#to + :one"
		names["#from"], names["#to"], values[":one"] = string(w.r.From), string(r.Status), num(1)
	}
	up := &types.Update{TableName: &s.table, Key: key(orgPK(w.r.OrgID), campaignSK(r.CampaignID)),
		UpdateExpression: aws.String(expr), ConditionExpression: aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: values}
	if len(names) > 0 {
		up.ExpressionAttributeNames = names
	}
	return &types.TransactWriteItem{Update: up}
}

// stockUpdate is the transaction item of a stock move on the gift's
// counts (the organization's gift, or the catalog's): the deltas added,
// conditioned on the move's range; the gift as it was comes back when the
// condition fails, so the failure says whether anything was available.
// A variant's move adds the same deltas to the gift's own inventory, in
// the same update: a gift's counts are its variants' sum (docs/fulfilment.md).
func (s *Store) stockUpdate(orgID string, catalog bool, m fulfilment.StockMove) types.TransactWriteItem {
	pk := orgPK(orgID)
	if catalog {
		pk = orgPK(gifting.CatalogOrgID)
	}
	// total is a reserved word: every count goes by a name.
	names := map[string]string{"#inv": "inventory", "#t": "total", "#a": "available", "#r": "reserved"}
	path := "#inv"
	if m.VariantID != "" {
		path, names["#vinv"], names["#v"] = "#vinv.#v", "vinv", m.VariantID
	}
	t, a, r := path+".#t", path+".#a", path+".#r"
	values := item{":dt": num(int64(m.Total)), ":da": num(int64(m.Available)), ":dr": num(int64(m.Reserved)),
		":alo": num(int64(m.AvailableAtLeast)), ":rlo": num(int64(m.ReservedAtLeast))}
	cond := a + " >= :alo AND " + r + " >= :rlo"
	if m.AvailableAtMost != fulfilment.NoLimit {
		cond += " AND " + a + " <= :ahi"
		values[":ahi"] = num(int64(m.AvailableAtMost))
	}
	expr := "SET " + t + " = " + t + " + :dt, " + a + " = " + a + " + :da, " + r + " = " + r + " + :dr"
	if m.VariantID != "" {
		expr += ", #inv.#t = #inv.#t + :dt, #inv.#a = #inv.#a + :da, #inv.#r = #inv.#r + :dr"
	}
	return types.TransactWriteItem{Update: &types.Update{TableName: &s.table, Key: key(pk, giftSK(m.GiftID)),
		UpdateExpression: aws.String(expr), ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld}}
}

// orderCancelled maps a cancelled order transaction to the slice's
// outcome, nil when not understood.
func orderCancelled(tx *txn, reasons []types.CancellationReason) error {
	switch {
	case tx.failed(reasons, condOrder):
		return fulfilment.ErrOrderChanged
	case tx.failed(reasons, condStock):
		return stockFailed(tx.old(reasons, condStock), "")
	case tx.failed(reasons, condTracking):
		return fulfilment.ErrTrackingTaken
	case tx.failed(reasons, condRecipient):
		return fulfilment.ErrRecipientChanged
	case tx.failed(reasons, condCampaign):
		return recipient.ErrCampaignMissing
	}
	return nil
}

// stockFailed is the outcome of a stock move whose condition failed, from
// the gift as it was (the counts of variantID when not ""): nothing
// available, or counts that moved since read.
func stockFailed(old item, variantID string) error {
	inv, _ := old["inventory"].(*types.AttributeValueMemberM)
	if variantID != "" {
		inv = nil
		if vinv, ok := old["vinv"].(*types.AttributeValueMemberM); ok {
			inv, _ = vinv.Value[variantID].(*types.AttributeValueMemberM)
		}
	}
	if inv != nil {
		if n, ok := inv.Value["available"].(*types.AttributeValueMemberN); ok {
			if v, err := strconv.Atoi(n.Value); err == nil && v <= 0 {
				return fulfilment.ErrOutOfStock
			}
		}
	}
	return fulfilment.ErrStockMoved
}
