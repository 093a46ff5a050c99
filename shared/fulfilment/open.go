package fulfilment

import (
	"slices"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// NewOrderInput is what a confirmed claim tells the order it opens: whose
// it is, the gift (and variant) chosen, where it goes, what the recipient
// costs, and the stock of that gift or variant as read.
type NewOrderInput struct {
	OrderID     string
	OrgID       string
	CampaignID  string
	RecipientID string
	GiftID      string
	GiftName    string
	// CatalogGift is true for a gift of the service catalog
	// (isDelightloop): the operator ships it.
	CatalogGift bool
	VariantID   string
	VariantName string
	// ShipTo is the recipient's name and the address the claim confirmed
	// (validated by the claim).
	ShipTo ShipTo
	// Credits is the recipient's creditsCharged as the claim leaves it.
	Credits int64
	// Stock is the gift's (or the variant's) stock as read.
	Stock Stock
}

// OpenPlan is an order opened by a claim, ready to commit in the claim's
// transaction: the order (conditioned on its id being new), one unit
// reserved, the recipient's move and the order.created message (and
// gift.low_stock when the unit crosses the threshold).
type OpenPlan struct {
	Order     Stored
	Stock     StockMove
	Recipient RecipientMove
	Messages  []gifting.Change
}

// NewOrder opens the order of a confirmed claim at now, open and version
// 1, with one unit of the gift (or variant) reserved: nothing available is
// a CONFLICT naming giftId or variantId.
//
// The rule of processing: an order is open for fulfilment from the moment
// it exists (it is in its fulfiller's queue and export at once), and it
// exists from the claim's transaction, so the recipient moves to
// processing in that same transaction. The claim still passes through
// address_confirmed (its rules and emails are the claim's), but what is
// stored and counted is processing: address_confirmed remains the state
// of a recipient confirmed before orders existed.
func NewOrder(in NewOrderInput, now time.Time) (OpenPlan, error) {
	if err := in.check(); err != nil {
		return OpenPlan{}, err
	}
	move, err := DecideReserve(in.Stock)
	if err != nil {
		return OpenPlan{}, err
	}
	o := Order{OrderID: in.OrderID, OrganizationID: in.OrgID, CampaignID: in.CampaignID, RecipientID: in.RecipientID,
		GiftID: in.GiftID, GiftName: in.GiftName, VariantID: in.VariantID, VariantName: in.VariantName,
		Fulfiller: FulfillerOf(in.CatalogGift), Status: StatusOpen, ShipTo: in.ShipTo, Shipments: []Shipment{},
		Credits: in.Credits, CreatedAt: now, UpdatedAt: now}
	if !o.MovesStock() {
		move = StockMove{} // a sandbox's claim of a catalog gift reserves nothing live
	}
	p := OpenPlan{Order: Stored{Order: o, Version: 1}, Stock: move, Recipient: moveOf(o, now),
		Messages: []gifting.Change{message(o)}}
	if move.LowStock {
		p.Messages = append(p.Messages, LowStockMessage(move, *in.Stock.LowStockAt))
	}
	return p, nil
}

// check refuses an input the claim should not have produced: ids missing,
// a stock of another gift or variant, an address without its required
// lines, negative credits. The claim validated what the recipient sent,
// so each is INTERNAL.
func (in NewOrderInput) check() error {
	var missing []string
	for name, v := range map[string]string{"orderId": in.OrderID, "organizationId": in.OrgID, "campaignId": in.CampaignID,
		"recipientId": in.RecipientID, "giftId": in.GiftID, "shipTo.line1": in.ShipTo.Line1, "shipTo.city": in.ShipTo.City,
		"shipTo.zip": in.ShipTo.Zip, "shipTo.country": in.ShipTo.Country} {
		if strings.TrimSpace(v) == "" {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	switch {
	case len(missing) > 0:
		return gifting.Errorf(gifting.CodeInternal, "an order cannot open without %s", strings.Join(missing, ", "))
	case in.Stock.GiftID != in.GiftID || in.Stock.VariantID != in.VariantID:
		return gifting.Errorf(gifting.CodeInternal, "the stock read (%s/%q) is not the order's gift %s variant %q",
			in.Stock.GiftID, in.Stock.VariantID, in.GiftID, in.VariantID)
	case in.Credits < 0:
		return gifting.Errorf(gifting.CodeInternal, "an order cannot open with %d credits", in.Credits)
	}
	return nil
}
