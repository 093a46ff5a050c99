package fulfilment

import (
	"github.com/giftcampaign/service/shared/csvexport"
	"github.com/giftcampaign/service/shared/gifting"
)

// ExportColumns are the header row of an orders export: what a warehouse
// needs to ship an order (GET /orders/export; the operator's export adds
// the organization's id after them).
var ExportColumns = []string{"orderId", "name", "line1", "line2", "city", "state", "zip", "country", "phone",
	"giftId", "giftName", "variantId", "variantName", "campaignId", "createdAt"}

// ExportRow is o's row of an export, in ExportColumns' order, with every
// cell safe to open in a spreadsheet (csvexport.Safe).
func ExportRow(o Order) []string {
	a := o.ShipTo
	return csvexport.Safe(o.OrderID, a.Name, a.Line1, a.Line2, a.City, a.State, a.Zip, a.Country, a.Phone,
		o.GiftID, o.GiftName, o.VariantID, o.VariantName, o.CampaignID, gifting.FormatTime(o.CreatedAt))
}
