package fulfilment_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestReserveCrossesLowStockOnce: a claim reserves one unit; the one
// that takes available down to the threshold says so, the ones before
// and after do not.
func TestReserveCrossesLowStockOnce(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		available int
		at        *int
		low       bool
	}{
		{"no threshold", 3, nil, false},
		{"above the threshold after", 5, threshold(3), false},
		{"onto the threshold", 4, threshold(3), true},
		{"below it already", 3, threshold(3), false},
		{"the last unit, threshold 0", 1, threshold(0), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := fulfilment.Stock{GiftID: "g1", Total: 10, Available: tt.available, Reserved: 1, LowStockAt: tt.at}
			m, err := fulfilment.DecideReserve(s)
			if err != nil {
				t.Fatal(err)
			}
			after, ok := m.Apply(s)
			if !ok || after.Available != tt.available-1 || after.Reserved != 2 || after.Total != 10 {
				t.Errorf("after %+v (condition held %v); want one unit moved from available to reserved", after, ok)
			}
			if m.LowStock != tt.low {
				t.Errorf("LowStock %v; want %v", m.LowStock, tt.low)
			}
		})
	}
}

// TestRacingReservationsPastTheThreshold: two claims read the same count
// one above the threshold; whichever commits first takes the crossing,
// the other's range no longer holds and it decides again, without a
// second message; and the last unit goes to exactly one of two.
func TestRacingReservationsPastTheThreshold(t *testing.T) {
	t.Parallel()
	s := fulfilment.Stock{GiftID: "g1", Total: 5, Available: 3, LowStockAt: threshold(2)}
	a, _ := fulfilment.DecideReserve(s)
	b, _ := fulfilment.DecideReserve(s)
	s1, ok := a.Apply(s)
	if !ok || !a.LowStock {
		t.Fatalf("first: held %v, low %v; want the crossing", ok, a.LowStock)
	}
	if _, ok := b.Apply(s1); ok {
		t.Fatal("the second claim's crossing held after the first crossed: two gift.low_stock messages")
	}
	b, _ = fulfilment.DecideReserve(s1)
	if s2, ok := b.Apply(s1); !ok || b.LowStock || s2.Available != 1 {
		t.Fatalf("decided again: held %v, low %v, %+v; want a plain reservation", ok, b.LowStock, s2)
	}

	last := fulfilment.Stock{GiftID: "g1", VariantID: "XL", Total: 1, Available: 1}
	x, _ := fulfilment.DecideReserve(last)
	y, _ := fulfilment.DecideReserve(last)
	left, ok := x.Apply(last)
	if !ok {
		t.Fatal("the first claim of the last unit failed")
	}
	if _, ok := y.Apply(left); ok {
		t.Fatal("two claims took the last unit")
	}
	_, err := fulfilment.DecideReserve(left)
	wantError(t, err, gifting.CodeConflict, "the variant you chose is out of stock; choose another")
}

// TestStockMovesOfAnOrder: shipping consumes the reserved unit (reserved
// and total down), cancelling releases it, a failed delivery returns it
// to the shelf; a count with nothing reserved cannot be consumed or
// released.
func TestStockMovesOfAnOrder(t *testing.T) {
	t.Parallel()
	s := reservedStock()
	c, err := fulfilment.DecideConsume(s)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Apply(s); !ok || got.Total != 9 || got.Reserved != 2 || got.Available != 5 {
		t.Errorf("consumed: %+v; want total 9, reserved 2, available 5", got)
	}
	r, err := fulfilment.DecideRelease(s)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := r.Apply(s); !ok || got.Total != 10 || got.Reserved != 2 || got.Available != 6 {
		t.Errorf("released: %+v; want total 10, reserved 2, available 6", got)
	}
	back := fulfilment.DecideReturn("g1", "M")
	if got, ok := back.Apply(s); !ok || got.Total != 11 || got.Available != 6 || got.Reserved != 3 {
		t.Errorf("returned: %+v; want total 11, available 6, reserved 3", got)
	}
	none := fulfilment.Stock{GiftID: "g1", Total: 4, Available: 4}
	if _, err := fulfilment.DecideConsume(none); gifting.ErrorCode(err) != gifting.CodeInternal {
		t.Errorf("consume with none reserved: %v; want INTERNAL", err)
	}
	if _, err := fulfilment.DecideRelease(none); gifting.ErrorCode(err) != gifting.CodeInternal {
		t.Errorf("release with none reserved: %v; want INTERNAL", err)
	}
	if _, ok := c.Apply(none); ok {
		t.Error("a consumption's condition held with nothing reserved")
	}
}
