package fulfilment_test

import (
	"errors"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// at is the time the decisions run at in these tests.
var at = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func threshold(n int) *int { return &n }

// openOrder is an open order of acme's campaign C1 for recipient R1, gift
// g1 size M, costing 40 credits, at version 2.
func openOrder() fulfilment.Stored {
	o := fulfilment.Order{OrderID: "o1", OrganizationID: "acme", CampaignID: "C1", RecipientID: "R1",
		GiftID: "g1", GiftName: "Hoodie", VariantID: "M", VariantName: "Medium", Fulfiller: fulfilment.FulfillerService,
		Status: fulfilment.StatusOpen, ShipTo: fulfilment.ShipTo{Name: "Ada Lovelace", Line1: "1 Main Street", City: "Springfield",
			Zip: "62701", Country: "US"}, Shipments: []fulfilment.Shipment{}, Credits: 40, CreatedAt: at.Add(-time.Hour),
		UpdatedAt: at.Add(-time.Hour)}
	return fulfilment.Stored{Order: o, Version: 2}
}

// reservedStock is g1/M's stock with o1's unit reserved.
func reservedStock() fulfilment.Stock {
	return fulfilment.Stock{GiftID: "g1", VariantID: "M", Total: 10, Available: 5, Reserved: 3}
}

// wantError fails unless err has code and, when msg is not "", that
// message.
func wantError(t *testing.T, err error, code gifting.Code, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %s", code)
	}
	if got := gifting.ErrorCode(err); got != code {
		t.Fatalf("error %v has code %s; want %s", err, got, code)
	}
	if msg != "" && gifting.ErrorMessage(err) != msg {
		t.Errorf("message %q; want %q", gifting.ErrorMessage(err), msg)
	}
}

func asError(err error, target **gifting.Error) bool { return errors.As(err, target) }
