package fulfilment

import (
	"errors"
	"slices"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// Outcomes of one row of a shipment import, as a bulk add reports its
// items (a 207 when any failed).
const (
	RowShipped   = "shipped"
	RowUnchanged = "unchanged"
	RowFailed    = "failed"
)

// ImportItem is what happened to one row: shipped (the shipment was
// recorded), unchanged (the same shipment was recorded before: a file
// sent again applies each row once) or failed, with the reason and for
// invalid fields the problem with each.
type ImportItem struct {
	Line    int
	OrderID string
	Status  string
	Reason  string
	Details map[string]string
}

// ImportResult reports an import row by row, with totals per outcome.
type ImportResult struct {
	Items     []ImportItem
	Shipped   int
	Unchanged int
	Failed    int
}

// Add records one row's outcome.
func (r *ImportResult) Add(it ImportItem) {
	r.Items = append(r.Items, it)
	switch it.Status {
	case RowShipped:
		r.Shipped++
	case RowUnchanged:
		r.Unchanged++
	default:
		r.Failed++
	}
}

// Sort orders the items by line, as the rows were sent.
func (r *ImportResult) Sort() {
	slices.SortFunc(r.Items, func(a, b ImportItem) int { return a.Line - b.Line })
}

// ProblemItem is the failed item of a row ParseShipmentCSV refused.
func ProblemItem(p RowProblem) ImportItem {
	it := ImportItem{Line: p.Line, OrderID: p.OrderID, Status: RowFailed, Reason: p.Reason, Details: p.Details}
	if len(p.Details) > 0 {
		it.Reason = joinDetails(p.Details)
	}
	return it
}

// RowOutcome is the item of row once its shipment was decided and
// committed (err nil) or refused (err): a Replay is unchanged. An
// internal error is reported without its text, which may hold details
// that must not leak.
func RowOutcome(row ShipmentRow, replay bool, err error) ImportItem {
	it := ImportItem{Line: row.Line, OrderID: row.OrderID, Status: RowShipped}
	switch {
	case err != nil:
		it.Status, it.Reason = RowFailed, gifting.ErrorMessage(err)
		if gifting.ErrorCode(err) == gifting.CodeInternal || gifting.ErrorCode(err) == gifting.CodeUnavailable {
			it.Reason = "the shipment could not be recorded; send this row again"
		}
		var e *gifting.Error
		if errors.As(err, &e) && len(e.Details) > 0 {
			it.Details, it.Reason = e.Details, joinDetails(e.Details)
		}
	case replay:
		it.Status = RowUnchanged
	}
	return it
}

// joinDetails is a validation error's details as one reason: "field
// problem; …", by field name.
func joinDetails(d map[string]string) string {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + d[k]
	}
	return strings.Join(parts, "; ")
}
