package recipient

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// The operator's use cases (issue 31 item 4; decision 0012): the service
// catalog's gifts are shipped by the service's operator for every
// organization, through the admin CLI. They are the organization's
// (Orders, Ship) over the operator's queue: the same decisions, the same
// transactions, the same per-row report.

// ServiceOrders reads a page of the open orders the operator ships, of
// every organization, oldest first (at most MaxExportLimit). An order
// read from the queue that is no longer open (shipped or cancelled since
// the index was read) is left out, so a page may hold fewer orders than
// limit while Next is not "". Errors: VALIDATION_FAILED naming limit or
// cursor.
func (a *App) ServiceOrders(ctx context.Context, cursor string, limit int) (OrdersPage, error) {
	var p gifting.Problems
	if limit < 1 || limit > MaxExportLimit {
		p.Add("limit", "must be a whole number from 1 to "+strconv.Itoa(MaxExportLimit))
	}
	if err := p.Err(); err != nil {
		return OrdersPage{}, err
	}
	orders, next, err := a.store.OpenServiceOrders(ctx, cursor, limit)
	if errors.Is(err, fulfilment.ErrBadCursor) {
		p.Add("cursor", "is not a cursor of the service orders")
		return OrdersPage{}, p.Err()
	}
	out := OrdersPage{Limit: limit, Next: next, Orders: make([]fulfilment.Order, 0, len(orders))}
	for _, o := range orders {
		if o.Status == fulfilment.StatusOpen && o.OperatorShips() {
			out.Orders = append(out.Orders, o)
		}
	}
	return out, err
}

// ServiceImport is a shipment file's report with the organization of each
// order found.
type ServiceImport struct {
	fulfilment.ImportResult
	// OrgOf is the organization of each order id found.
	OrgOf map[string]string
}

// ImportServiceShipments records the shipments of a CSV file of the
// organization's format (fulfilment.ParseShipmentCSV) for service orders
// of any organization: each row's order is found by its id, then shipped
// as its organization's import does (Ship), so a row recorded before is
// unchanged and a file sent again applies each row once. A row naming an
// organization's own order, or no order, fails as not found. Errors:
// VALIDATION_FAILED for a file that is not a shipment CSV at all.
func (a *App) ImportServiceShipments(ctx context.Context, file io.Reader) (ServiceImport, error) {
	rows, problems, err := fulfilment.ParseShipmentCSV(file)
	res := ServiceImport{OrgOf: map[string]string{}}
	if err != nil {
		return res, err
	}
	for _, p := range problems {
		res.Add(fulfilment.ProblemItem(p))
	}
	for _, row := range rows {
		org, err := a.store.ServiceOrderOrg(ctx, row.OrderID)
		replay := false
		switch {
		case errors.Is(err, fulfilment.ErrNoOrder):
			err = gifting.NotFound("service order", row.OrderID)
		case err == nil:
			res.OrgOf[row.OrderID] = org
			_, replay, err = a.Ship(ctx, org, row.OrderID, row.ShipmentInput)
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Add(fulfilment.RowOutcome(row, replay, err))
	}
	res.Sort()
	return res, nil
}
