package fulfilment_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestSandboxOrdersTouchNothingLive: a sandbox's order of a service-catalog
// gift is not the operator's to ship and moves no unit of the catalog's
// live stock when it ships or is cancelled, even on stock that holds no
// reserved unit for it; a live organization's, and a sandbox's order of
// its own gift, move stock as ever.
func TestSandboxOrdersTouchNothingLive(t *testing.T) {
	t.Parallel()
	noneReserved := fulfilment.Stock{GiftID: "g1", VariantID: "M", Total: 10, Available: 10}
	for _, tt := range []struct {
		name      string
		org       string
		fulfiller fulfilment.Fulfiller
		operator  bool
		moves     bool
	}{
		{"live, catalog gift", "acme", fulfilment.FulfillerService, true, true},
		{"live, own gift", "acme", fulfilment.FulfillerOrganization, false, true},
		{"sandbox, catalog gift", gifting.SandboxOrgID("acme"), fulfilment.FulfillerService, false, false},
		{"sandbox, own gift", gifting.SandboxOrgID("acme"), fulfilment.FulfillerOrganization, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cur := openOrder()
			cur.OrganizationID, cur.Fulfiller = tt.org, tt.fulfiller
			if got := cur.OperatorShips(); got != tt.operator {
				t.Errorf("OperatorShips %v, want %v", got, tt.operator)
			}
			stock := reservedStock()
			if !tt.moves {
				stock = noneReserved // a live unit it never reserved
			}
			ship, err := fulfilment.DecideShipment(cur, stock, ups, at)
			if err != nil {
				t.Fatal(err)
			}
			cancel, err := fulfilment.DecideCancel(cur, stock, "changed plans", at)
			if err != nil {
				t.Fatal(err)
			}
			if moved := ship.Stock.Kind != "" && cancel.Stock.Kind != ""; moved != tt.moves {
				t.Errorf("stock moves: shipment %+v, cancel %+v; want moves %v", ship.Stock, cancel.Stock, tt.moves)
			}
		})
	}
}
