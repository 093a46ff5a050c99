package fulfilment

import (
	"context"
	"errors"
	"time"
)

// The ports storage implements for the fulfilment use cases. Storage
// decides nothing: it reads, commits each plan in one transaction
// conditioned on what the plan was decided from, and reports a failed
// condition as one of the outcomes below, for the use case to read again
// and decide again.

// Orders reads orders and stock.
type Orders interface {
	// Order reads one order of orgID, strongly consistent; ErrNoOrder
	// when there is none (another organization's included).
	Order(ctx context.Context, orgID, orderID string) (Stored, error)
	// OrderByTracking reads the order of orgID whose shipment has the
	// carrier and tracking number of these keys (CarrierKey,
	// TrackingKey); ErrNoOrder when none has.
	OrderByTracking(ctx context.Context, orgID, carrierKey, trackingKey string) (Stored, error)
	// Stock reads the stock of a gift, or of its variant when variantID
	// is not "", with the organization's low-stock threshold.
	Stock(ctx context.Context, orgID, giftID, variantID string) (Stock, error)
	// OrdersPage reads a page of orgID's orders matching f after cursor
	// ("" for the first), newest first, with the next cursor ("" after
	// the last page): one Query of an index, O(page).
	OrdersPage(ctx context.Context, orgID string, f Filter, cursor string, limit int) (orders []Order, next string, err error)
	// SkipOrders is the cursor after the first n orders of orgID matching
	// f (a numbered page's start), counting index keys only; "" when
	// fewer than n+1 match.
	SkipOrders(ctx context.Context, orgID string, f Filter, n int) (cursor string, err error)
}

// ServiceOrders reads the orders the operator ships: those of the service
// catalog's gifts, of every organization (issue 31, item 4; decision 0012).
type ServiceOrders interface {
	// OpenServiceOrders reads a page of the open orders the operator
	// ships, of every organization, oldest first, from a sparse index
	// (no scan), with the next cursor ("" after the last page);
	// ErrBadCursor for a cursor it did not hand out. Eventually
	// consistent: an order that left open a moment ago may be in it.
	OpenServiceOrders(ctx context.Context, cursor string, limit int) (orders []Order, next string, err error)
	// ServiceOrderOrg is the organization of the service order orderID,
	// whatever its state; ErrNoOrder when no service order has that id
	// (an organization's own order included).
	ServiceOrderOrg(ctx context.Context, orderID string) (orgID string, err error)
}

// Filter narrows a page of orders: by state and by campaign, "" for any.
type Filter struct {
	Status     Status
	CampaignID string
}

// Commits writes the plans. R is the recipient slice's write of the
// order's recipient (recipient.Update), decided by that slice from the
// plan's RecipientMove: this package cannot name the type, since the
// recipient slice imports this one to open an order in its claim. Each
// method writes its plan and r in one transaction: the order conditioned
// on the plan's Before version, the stock move on its range, the
// recipient on its version, the change messages in the transaction's
// change record; a refund's wallet plan joins it as every money path's
// does (wallet.Apply). Nothing is written when a condition fails.
type Commits[R any] interface {
	// CommitShipment writes p (not a Replay), its tracking entry
	// conditioned on being new: ErrTrackingTaken when another order of
	// the organization holds that carrier and tracking number.
	CommitShipment(ctx context.Context, p ShipmentPlan, r R) error
	// CommitTracking writes p (not Unchanged).
	CommitTracking(ctx context.Context, p TrackingPlan, r R) error
	// CommitCancel writes p (not a Replay) with the refund's wallet plan
	// when p has a refund.
	CommitCancel(ctx context.Context, p CancelPlan, r R) error
}

// Secrets keeps each organization's EasyPost webhook secret, sealed at
// rest (the use case seals it: storage holds only the sealed form) and
// never returned by the API or logged.
type Secrets interface {
	// SetEasyPostSecret stores orgID's sealed secret, replacing the one
	// before.
	SetEasyPostSecret(ctx context.Context, orgID, sealed string, at time.Time) error
	// EasyPostSecret reads orgID's sealed secret and when it was set,
	// strongly consistent (a secret just set verifies the next event);
	// the zero SealedSecret when none is set.
	EasyPostSecret(ctx context.Context, orgID string) (SealedSecret, error)
}

// SealedSecret is an organization's EasyPost webhook secret as stored:
// sealed (Sealer), and when it was set.
type SealedSecret struct {
	Sealed    string
	UpdatedAt time.Time
}

// Outcomes storage reports. None is shown to a user as it is.
var (
	// ErrNoOrder: no such order (or another organization's).
	ErrNoOrder = errors.New("no such order")
	// ErrOrderChanged: the order is no longer at the version the plan was
	// decided from; read it again and decide again.
	ErrOrderChanged = errors.New("the order changed")
	// ErrRecipientChanged: the recipient is no longer at the version its
	// write was decided from.
	ErrRecipientChanged = errors.New("the order's recipient changed")
	// ErrStockMoved: the stock's counts left the range the move was
	// decided for (another claim crossed the low-stock threshold first);
	// read it again and decide again.
	ErrStockMoved = errors.New("the stock moved")
	// ErrOutOfStock: a reservation found no unit available (OutOfStock
	// is what the user reads).
	ErrOutOfStock = errors.New("out of stock")
	// ErrTrackingTaken: another order of the organization has a shipment
	// of that carrier and tracking number.
	ErrTrackingTaken = errors.New("the tracking number is another order's")
	// ErrContended: the transaction met a conflict or throttling; the
	// same plan may succeed later.
	ErrContended = errors.New("the transaction was contended")
	// ErrBadCursor: a page's cursor is not one storage handed out (the
	// use case says which parameter is wrong).
	ErrBadCursor = errors.New("not a cursor of this list")
)
