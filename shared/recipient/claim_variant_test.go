package recipient_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// sized is claimState's gift with two sizes: S has one unit left, M none;
// the organization wants word when one falls to 0.
func sized() recipient.ClaimState {
	st := claimState()
	zero := 0
	g := &st.Gift.Gift
	g.Name, g.LowStockThreshold = "Hoodie", &zero
	g.Variants = []gifting.GiftVariant{{VariantID: "vs", Name: "S"}, {VariantID: "vm", Name: "M"}}
	g.VariantStock = map[string]gifting.Inventory{"vs": {Total: 2, Available: 1, Reserved: 1}, "vm": {Total: 1, Reserved: 1}}
	g.Inventory = gifting.Inventory{Total: 3, Available: 1, Reserved: 2}
	return st
}

// TestClaimCheckOfVariants: a gift with variants needs one of them, and
// one in stock; a gift without refuses one.
func TestClaimCheckOfVariants(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, variant string
		plain         bool // the gift without its variants
		code          gifting.Code
		msg           string
	}{
		{"a size in stock", "vs", false, "", ""},
		{"no size", "", false, gifting.CodeValidation, "choose an option of Hoodie"},
		{"a size of nothing", "vx", false, gifting.CodeValidation, "choose one of the options shown for Hoodie"},
		{"the size sold out", "vm", false, gifting.CodeConflict, "the variant you chose is out of stock; choose another"},
		{"a size of a gift without", "vs", true, gifting.CodeValidation, "the gift you chose has no options to choose from"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := sized()
			if tt.plain {
				st.Gift.Gift.Variants, st.Gift.Gift.VariantStock = nil, nil
			}
			err := st.Check("R1", recipient.ClaimInput{GiftID: "g1", VariantID: tt.variant, ShippingAddress: address})
			if tt.code == "" {
				if err != nil {
					t.Errorf("Check = %v; want none", err)
				}
				return
			}
			if gifting.ErrorCode(err) != tt.code {
				t.Fatalf("Check = %v; want %s", err, tt.code)
			}
			if e := err.(*gifting.Error); e.Message != tt.msg && e.Details["variantId"] != tt.msg {
				t.Errorf("Check = %v (%v); want %q", err, e.Details, tt.msg)
			}
		})
	}
}

// TestDecideClaimOfAVariant: the order opens with the size, reserving a
// unit of it, and the size falling to the threshold sends gift.low_stock.
func TestDecideClaimOfAVariant(t *testing.T) {
	t.Parallel()
	st := sized()
	st.OrderID = "O1"
	p, err := recipient.DecideClaim("acme", st, recipient.ClaimInput{GiftID: "g1", VariantID: "vs", ShippingAddress: address}, at)
	if err != nil {
		t.Fatal(err)
	}
	o, m := p.Order.Order.Order, p.Order.Stock
	if o.VariantID != "vs" || o.VariantName != "S" || m.VariantID != "vs" || m.Available != -1 || m.Reserved != 1 || !m.LowStock {
		t.Errorf("order %s/%s, move %v (low stock %v); want S reserved and the threshold crossed", o.VariantID, o.VariantName, m, m.LowStock)
	}
	types := []string{}
	for _, c := range p.Order.Messages {
		types = append(types, c.Type)
	}
	if len(types) != 2 || types[1] != gifting.ChangeGiftLowStock {
		t.Errorf("messages %v; want order.created and gift.low_stock", types)
	}
}
