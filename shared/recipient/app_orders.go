package recipient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/retry"
	"github.com/giftcampaign/service/shared/wallet"
)

// The orders' use cases (issue 31): the organization's queue of orders,
// its shipments and cancellations. Each loads the order, its stock and its
// recipient, has shared/fulfilment decide the order's change and this
// slice the recipient's write (DecideOrderMove), and commits both in one
// transaction, deciding again when a condition failed.

// OrdersQuery is a page of orders asked for: a filter, a page by number
// or by cursor, and its size.
type OrdersQuery struct {
	Status     string
	CampaignID string
	Page       int
	Limit      int
	Cursor     string
}

// Bounds of a page of orders.
const (
	DefaultOrdersLimit = 20
	MaxOrdersLimit     = 100
	// MaxExportLimit is the most rows of an export page: about 300 bytes
	// a row, so a page stays far under Lambda's 6 MB response.
	MaxExportLimit = 1000
)

// OrdersPage is a page of orders and the cursor of the next ("" after
// the last).
type OrdersPage struct {
	Orders []fulfilment.Order
	Next   string
	Page   int
	Limit  int
}

// Orders reads a page of orgID's orders, newest first (an export reads
// with maxLimit MaxExportLimit). Errors: VALIDATION_FAILED naming status,
// campaignId, page, limit or cursor.
func (a *App) Orders(ctx context.Context, orgID string, q OrdersQuery, maxLimit int) (OrdersPage, error) {
	var p gifting.Problems
	if q.Status != "" && !fulfilment.Status(q.Status).Valid() {
		p.Add("status", fmt.Sprintf("must be one of %v", fulfilment.Statuses))
	}
	if q.CampaignID != "" && !gifting.ValidID(q.CampaignID) {
		p.Add("campaignId", "must be a campaign id")
	}
	if q.Page == 0 {
		q.Page = 1
	}
	if q.Limit == 0 {
		q.Limit = min(DefaultOrdersLimit, maxLimit)
	}
	if q.Page < 1 || q.Page > 100_000 {
		p.Add("page", "must be a whole number from 1 to 100000")
	}
	if q.Limit < 1 || q.Limit > maxLimit {
		p.Add("limit", "must be a whole number from 1 to "+strconv.Itoa(maxLimit))
	}
	if q.Cursor != "" && q.Page > 1 {
		p.Add("cursor", "cannot be combined with page: a cursor names the page")
	}
	if err := p.Err(); err != nil {
		return OrdersPage{}, err
	}
	f := fulfilment.Filter{Status: fulfilment.Status(q.Status), CampaignID: q.CampaignID}
	out := OrdersPage{Page: q.Page, Limit: q.Limit, Orders: []fulfilment.Order{}}
	cursor := q.Cursor
	if q.Page > 1 {
		c, err := a.orderStore().SkipOrders(ctx, orgID, f, (q.Page-1)*q.Limit)
		if err != nil || c == "" {
			return out, err // past the last order: an empty page
		}
		cursor = c
	}
	orders, next, err := a.orderStore().OrdersPage(ctx, orgID, f, cursor, q.Limit)
	if errors.Is(err, fulfilment.ErrBadCursor) {
		p.Add("cursor", "is not a cursor of this list (use nextCursor of the page before, with the same filters)")
		return out, p.Err()
	}
	out.Orders, out.Next = orders, next
	return out, err
}

// Order reads one order of orgID. Errors: NOT_FOUND (another
// organization's included).
func (a *App) Order(ctx context.Context, orgID, orderID string) (fulfilment.Order, error) {
	so, err := a.loadOrder(ctx, orgID, orderID)
	return so.Order, err
}

func (a *App) loadOrder(ctx context.Context, orgID, orderID string) (fulfilment.Stored, error) {
	if !gifting.ValidID(orderID) {
		return fulfilment.Stored{}, gifting.NotFound("order", orderID)
	}
	so, err := a.orderStore().Order(ctx, orgID, orderID)
	if errors.Is(err, fulfilment.ErrNoOrder) {
		return so, gifting.NotFound("order", orderID)
	}
	return so, err
}

// orderStore is the store's orders port.
func (a *App) orderStore() OrderStore { return a.store }

// Ship records the shipment in of orgID's order (fulfilment.DecideShipment):
// the order and its recipient become shipped, the recipient's tracking
// link and shipmentInfo are filled, the reserved unit leaves the shelf, in
// one transaction. The same shipment again changes nothing (replay true).
// Errors: VALIDATION_FAILED (carrier, trackingNumber, trackingUrl),
// NOT_FOUND, CONFLICT (another shipment recorded, the order cancelled, the
// tracking number another order's).
func (a *App) Ship(ctx context.Context, orgID, orderID string, in fulfilment.ShipmentInput) (o fulfilment.Order, replay bool, err error) {
	if err := in.Validate(); err != nil {
		return o, false, err
	}
	for attempt := 1; ; attempt++ {
		cur, stock, rc, err := a.loadOrderState(ctx, orgID, orderID)
		if err != nil {
			return o, false, err
		}
		p, err := fulfilment.DecideShipment(cur, stock, in, a.store.Now())
		if err != nil || p.Replay {
			return p.Order.Order, p.Replay, err
		}
		err = a.store.CommitShipment(ctx, p, DecideOrderMove(orgID, rc, p.Recipient))
		if errors.Is(err, fulfilment.ErrTrackingTaken) {
			return o, false, &gifting.Error{Code: gifting.CodeConflict,
				Message: "another order of your organization was shipped with this carrier and tracking number",
				Details: map[string]string{"trackingNumber": "is another order's"}}
		}
		if again(err, attempt) {
			continue
		}
		return p.Order.Order, false, orderFailed(err, attempt)
	}
}

// ImportShipments records the shipments of a CSV file
// (fulfilment.ParseShipmentCSV), row by row (Ship): each row's outcome is
// reported, and a row recorded before is unchanged, so a file sent again
// applies each row once. Errors: VALIDATION_FAILED for a file that is not
// a shipment CSV at all.
func (a *App) ImportShipments(ctx context.Context, orgID string, file io.Reader) (fulfilment.ImportResult, error) {
	rows, problems, err := fulfilment.ParseShipmentCSV(file)
	if err != nil {
		return fulfilment.ImportResult{}, err
	}
	var res fulfilment.ImportResult
	for _, p := range problems {
		res.Add(fulfilment.ProblemItem(p))
	}
	for _, row := range rows {
		_, replay, err := a.Ship(ctx, orgID, row.OrderID, row.ShipmentInput)
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Add(fulfilment.RowOutcome(row, replay, err))
	}
	res.Sort()
	return res, nil
}

// CancelOrder cancels orgID's order for reason (fulfilment.DecideCancel)
// before it shipped: the recipient's credits come back to the wallet with
// a refund ledger entry, its unit back to available, its shipmentInfo
// shows the cancellation, in one transaction. Cancelling again changes
// nothing (replay true). Errors: VALIDATION_FAILED (reason), NOT_FOUND,
// CONFLICT (shipped or failed).
func (a *App) CancelOrder(ctx context.Context, orgID, orderID, reason string) (o fulfilment.Order, replay bool, err error) {
	for attempt := 1; ; attempt++ {
		cur, stock, rc, err := a.loadOrderState(ctx, orgID, orderID)
		if err != nil {
			return o, false, err
		}
		p, err := fulfilment.DecideCancel(cur, stock, reason, a.store.Now())
		if err != nil || p.Replay {
			return p.Order.Order, p.Replay, err
		}
		u := DecideOrderMove(orgID, rc, p.Recipient)
		if p.Refund != nil {
			_, err = wallet.Apply(ctx, a.store, *p.Refund, func(ctx context.Context, w wallet.Plan) error {
				p.Wallet = &w
				return a.store.CommitCancel(ctx, p, u)
			})
		} else {
			err = a.store.CommitCancel(ctx, p, u)
		}
		if again(err, attempt) {
			continue
		}
		return p.Order.Order, false, orderFailed(err, attempt)
	}
}

// loadOrderState reads an order, its stock and its recipient.
func (a *App) loadOrderState(ctx context.Context, orgID, orderID string) (fulfilment.Stored, fulfilment.Stock, Stored, error) {
	cur, err := a.loadOrder(ctx, orgID, orderID)
	if err != nil {
		return cur, fulfilment.Stock{}, Stored{}, err
	}
	stock, err := a.store.Stock(ctx, orgID, cur.GiftID, cur.VariantID)
	if err != nil {
		return cur, stock, Stored{}, err
	}
	rc, err := a.store.LoadRecipient(ctx, orgID, cur.CampaignID, cur.RecipientID)
	return cur, stock, rc, err
}

// again reports whether a commit's outcome asks to read and decide again:
// the order, its stock or its recipient changed since read, or the
// transaction was contended.
func again(err error, attempt int) bool {
	return attempt < retry.MaxAttempts && (errors.Is(err, fulfilment.ErrOrderChanged) ||
		errors.Is(err, fulfilment.ErrRecipientChanged) || errors.Is(err, fulfilment.ErrStockMoved) ||
		errors.Is(err, fulfilment.ErrContended))
}

// orderFailed is what a commit's outcome tells the caller once no attempt
// is left.
func orderFailed(err error, attempt int) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrCampaignMissing):
		return gifting.Errorf(gifting.CodeConflict, "the order's campaign was deleted; its order cannot change")
	case errors.Is(err, fulfilment.ErrContended):
		return gifting.Unavailable(fmt.Errorf("order: gave up after %d attempts: %w", attempt, err))
	}
	return fmt.Errorf("order: gave up after %d attempts: %w", attempt, err)
}
