package fulfilment

import (
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// ExportColumns are the header row of an orders export: what a warehouse
// needs to ship an order (GET /orders/export; the operator's export adds
// the organization's id after them).
var ExportColumns = []string{"orderId", "name", "line1", "line2", "city", "state", "zip", "country", "phone",
	"giftId", "giftName", "variantId", "variantName", "campaignId", "createdAt"}

// ExportRow is o's row of an export, in ExportColumns' order, with every
// cell safe to open in a spreadsheet (SafeCells).
func ExportRow(o Order) []string {
	a := o.ShipTo
	return SafeCells(o.OrderID, a.Name, a.Line1, a.Line2, a.City, a.State, a.Zip, a.Country, a.Phone,
		o.GiftID, o.GiftName, o.VariantID, o.VariantName, o.CampaignID, gifting.FormatTime(o.CreatedAt))
}

// SafeCells neutralises spreadsheet formulas, as OWASP's CSV injection
// guidance says: a cell starting with =, +, -, @, a tab or a carriage
// return is prefixed with a single quote, so a spreadsheet shows it as
// text instead of running it (a recipient typed the address; a name such
// as =HYPERLINK(…) must not run on the warehouse's computer).
func SafeCells(cells ...string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return cells
}
