package fulfilment_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

func newOrderInput() fulfilment.NewOrderInput {
	return fulfilment.NewOrderInput{OrderID: "o1", OrgID: "acme", CampaignID: "C1", RecipientID: "R1", GiftID: "g1",
		GiftName: "Hoodie", CatalogGift: true, VariantID: "M", VariantName: "Medium",
		ShipTo:  fulfilment.ShipTo{Name: "Ada Lovelace", Line1: "1 Main Street", City: "Springfield", Zip: "62701", Country: "US"},
		Credits: 40, Stock: fulfilment.Stock{GiftID: "g1", VariantID: "M", Total: 10, Available: 3, LowStockAt: threshold(2)}}
}

// TestNewOrderFromAClaim: the claim opens the order for the operator (a
// catalog gift) at version 1, reserves its unit, moves the recipient to
// processing and says order.created (and gift.low_stock when the unit
// crosses the threshold).
func TestNewOrderFromAClaim(t *testing.T) {
	t.Parallel()
	p, err := fulfilment.NewOrder(newOrderInput(), at)
	if err != nil {
		t.Fatal(err)
	}
	o := p.Order
	if o.Version != 1 || o.Status != fulfilment.StatusOpen || o.Fulfiller != fulfilment.FulfillerService ||
		o.VariantID != "M" || o.Credits != 40 || !o.CreatedAt.Equal(at) || o.ShipTo.Name != "Ada Lovelace" {
		t.Errorf("order %+v", o)
	}
	if p.Stock.Kind != fulfilment.MoveReserve || p.Stock.VariantID != "M" || !p.Stock.LowStock {
		t.Errorf("stock move %+v; want a reservation of M crossing the threshold", p.Stock)
	}
	if p.Recipient.To != gifting.RecipientProcessing || p.Recipient.RecipientID != "R1" || p.Recipient.ShipmentInfo["orderId"] != "o1" {
		t.Errorf("recipient move %+v; want R1 to processing with its order", p.Recipient)
	}
	if len(p.Messages) != 2 || p.Messages[0].Type != fulfilment.ChangeOrderCreated || p.Messages[1].Type != fulfilment.ChangeGiftLowStock {
		t.Errorf("messages %+v; want order.created then gift.low_stock", p.Messages)
	}
	if ls, ok := p.Messages[1].Data.(fulfilment.LowStock); !ok || ls.Available != 2 || ls.VariantID != "M" {
		t.Errorf("low stock data %+v", p.Messages[1].Data)
	}
}

func TestNewOrderRefusals(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		change func(*fulfilment.NewOrderInput)
		code   gifting.Code
		msg    string
	}{
		{"out of stock", func(in *fulfilment.NewOrderInput) { in.Stock.Available = 0 }, gifting.CodeConflict,
			"the variant you chose is out of stock; choose another"},
		{"gift out of stock", func(in *fulfilment.NewOrderInput) { in.VariantID, in.Stock.VariantID, in.Stock.Available = "", "", 0 },
			gifting.CodeConflict, "the gift you chose is out of stock; choose another"},
		{"another variant's stock", func(in *fulfilment.NewOrderInput) { in.Stock.VariantID = "L" }, gifting.CodeInternal, ""},
		{"no address", func(in *fulfilment.NewOrderInput) { in.ShipTo.Line1, in.ShipTo.Zip = "", " " }, gifting.CodeInternal, ""},
		{"negative credits", func(in *fulfilment.NewOrderInput) { in.Credits = -1 }, gifting.CodeInternal, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := newOrderInput()
			tt.change(&in)
			_, err := fulfilment.NewOrder(in, at)
			wantError(t, err, tt.code, tt.msg)
		})
	}
	in := newOrderInput()
	in.ShipTo.Line1, in.ShipTo.Zip = "", ""
	_, err := fulfilment.NewOrder(in, at)
	if want := "INTERNAL: an order cannot open without shipTo.line1, shipTo.zip"; err == nil || err.Error() != want {
		t.Errorf("error %v; want %q", err, want)
	}
}
