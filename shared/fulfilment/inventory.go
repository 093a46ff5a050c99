package fulfilment

import (
	"fmt"

	"github.com/giftcampaign/service/shared/gifting"
)

// Stock counts the units of one gift, or of one variant of a gift that
// has variants: Available can be claimed, Reserved are held by open
// orders, Total is what is on the shelf (available, reserved, and units
// neither, such as damaged ones): Available + Reserved ≤ Total.
type Stock struct {
	GiftID    string
	VariantID string
	Total     int
	Available int
	Reserved  int
	// LowStockAt, when not nil, is the organization's threshold: a
	// gift.low_stock message goes out when Available falls to it.
	LowStockAt *int
}

// MoveKind is why units move.
type MoveKind string

// Stock moves. A claim reserves a unit; a shipment consumes it (it leaves
// the shelf); a cancellation releases it back to available; a failed
// delivery returns it (the parcel comes back to the shelf).
const (
	MoveReserve MoveKind = "reserve"
	MoveConsume MoveKind = "consume"
	MoveRelease MoveKind = "release"
	MoveReturn  MoveKind = "return"
)

// NoLimit is AvailableAtMost of a move whose decision holds however many
// units are available.
const NoLimit = -1

// StockMove is one unit's move, as storage commits it: the counts change
// by the deltas (ADD, so concurrent moves of other units need not read
// again), conditioned on the counts the decision holds for. A failed
// condition is ErrStockMoved, or ErrOutOfStock when nothing was available.
type StockMove struct {
	GiftID    string
	VariantID string
	Kind      MoveKind
	// Deltas added to the counts.
	Total, Available, Reserved int
	// The condition: Available within [AvailableAtLeast, AvailableAtMost]
	// (AtMost NoLimit: no upper bound) and Reserved at least
	// ReservedAtLeast. A reservation's range is where its low-stock
	// decision holds: at the threshold's edge it pins Available exactly,
	// so of two claims racing past the threshold exactly one sends the
	// message; away from the edge claims do not conflict.
	AvailableAtLeast int
	AvailableAtMost  int
	ReservedAtLeast  int
	// LowStock says the move takes Available down to the threshold: the
	// commit writes a gift.low_stock message (LowStockMessage).
	LowStock bool
}

// LowStock is the data of a gift.low_stock message.
type LowStock struct {
	GiftID, VariantID string
	Available         int
	Threshold         int
}

// OutOfStock is the CONFLICT of a claim of a gift or variant with no unit
// available.
func OutOfStock(giftID, variantID string) error {
	field, what := "giftId", "the gift you chose"
	if variantID != "" {
		field, what = "variantId", "the variant you chose"
	}
	return &gifting.Error{Code: gifting.CodeConflict, Message: what + " is out of stock; choose another",
		Details: map[string]string{field: "is out of stock"}}
}

// DecideReserve plans the reservation of one unit of s by a claim: one
// unit from available to reserved. Nothing available is a CONFLICT
// (OutOfStock). The move's range pins the low-stock decision: it is
// LowStock when this unit takes Available down to the threshold.
func DecideReserve(s Stock) (StockMove, error) {
	if s.Available <= 0 {
		return StockMove{}, OutOfStock(s.GiftID, s.VariantID)
	}
	m := StockMove{GiftID: s.GiftID, VariantID: s.VariantID, Kind: MoveReserve, Available: -1, Reserved: 1,
		AvailableAtLeast: 1, AvailableAtMost: NoLimit}
	if s.LowStockAt == nil || *s.LowStockAt < 0 {
		return m, nil
	}
	t := *s.LowStockAt
	switch {
	case s.Available == t+1: // this unit crosses the threshold
		m.AvailableAtLeast, m.AvailableAtMost, m.LowStock = t+1, t+1, true
	case s.Available > t+1: // still above it after this unit
		m.AvailableAtLeast = t + 2
	default: // already at or below it: crossed earlier
		m.AvailableAtMost = t
	}
	return m, nil
}

// DecideConsume plans a shipment's unit leaving the shelf: reserved and
// total one down. An order reserved its unit when it opened, so none
// reserved is an INTERNAL error (the counts were changed by hand).
func DecideConsume(s Stock) (StockMove, error) {
	if s.Reserved <= 0 || s.Total <= 0 {
		return StockMove{}, stockBroken(s, "consume a reserved unit")
	}
	return StockMove{GiftID: s.GiftID, VariantID: s.VariantID, Kind: MoveConsume, Total: -1, Reserved: -1,
		AvailableAtMost: NoLimit, ReservedAtLeast: 1}, nil
}

// DecideRelease plans a cancelled order's unit going back to available.
func DecideRelease(s Stock) (StockMove, error) {
	if s.Reserved <= 0 {
		return StockMove{}, stockBroken(s, "release a reserved unit")
	}
	return StockMove{GiftID: s.GiftID, VariantID: s.VariantID, Kind: MoveRelease, Available: 1, Reserved: -1,
		AvailableAtMost: NoLimit, ReservedAtLeast: 1}, nil
}

// DecideReturn plans a failed delivery's unit coming back to the shelf:
// it was consumed when shipped, so total and available go one up. It
// needs no count: it cannot fail.
func DecideReturn(giftID, variantID string) StockMove {
	return StockMove{GiftID: giftID, VariantID: variantID, Kind: MoveReturn, Total: 1, Available: 1,
		AvailableAtMost: NoLimit}
}

// Apply is s after m, and whether m's condition held on s: what storage's
// conditioned update does, for tests and for a use case that decides
// from a count it just committed.
func (m StockMove) Apply(s Stock) (Stock, bool) {
	if s.Available < m.AvailableAtLeast || (m.AvailableAtMost != NoLimit && s.Available > m.AvailableAtMost) ||
		s.Reserved < m.ReservedAtLeast {
		return s, false
	}
	s.Total += m.Total
	s.Available += m.Available
	s.Reserved += m.Reserved
	return s, true
}

// LowStockMessage is the gift.low_stock message of a move that is
// LowStock, of stock s as read (threshold t).
func LowStockMessage(m StockMove, t int) gifting.Change {
	return gifting.NewChange(ChangeGiftLowStock, LowStock{GiftID: m.GiftID, VariantID: m.VariantID, Available: t, Threshold: t})
}

func stockBroken(s Stock, what string) error {
	return gifting.Errorf(gifting.CodeInternal, "cannot %s of gift %s variant %q: it counts %d reserved of %d",
		what, s.GiftID, s.VariantID, s.Reserved, s.Total)
}

// String names the move for logs: no personal data.
func (m StockMove) String() string {
	return fmt.Sprintf("%s %s/%s (total %+d, available %+d, reserved %+d)", m.Kind, m.GiftID, m.VariantID,
		m.Total, m.Available, m.Reserved)
}

// checkStock refuses stock read for another gift or variant than o's: a
// bug of the caller (INTERNAL), which would move the wrong units.
func (o Order) checkStock(s Stock) error {
	if s.GiftID != o.GiftID || s.VariantID != o.VariantID {
		return gifting.Errorf(gifting.CodeInternal, "the stock read (%s/%q) is not order %s's gift %s variant %q",
			s.GiftID, s.VariantID, o.OrderID, o.GiftID, o.VariantID)
	}
	return nil
}
