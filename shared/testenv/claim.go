package testenv

import (
	"context"
	"log/slog"
	"testing"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/recipient"
)

// Recipients is the recipient slice's use cases over s, as the pages and
// the worker build them without a mailer: tests write recipients with
// Write (add-recipient's transaction), claim, expire and move them.
func Recipients(s *dynamo.Store) *recipient.App {
	return recipient.NewApp(s, recipient.Config{PublicBaseURL: "https://gifts.test", Logger: func(context.Context) *slog.Logger { return Quiet }})
}

// Claim claims a recipient's gift as its claim page would: the campaign's
// first gift, shipped to a fixed address. A recipient must be claimed
// before the fulfilment side can move it to address_confirmed or later.
func Claim(t testing.TB, s *dynamo.Store, orgID, campaignID, recipientID string) recipient.Recipient {
	t.Helper()
	ctx := context.Background()
	c, err := s.Campaign(ctx, orgID, campaignID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Recipients(s).Claim(ctx, orgID, campaignID, recipientID, recipient.ClaimInput{
		GiftID: c.CampaignData.GiftIDs[0],
		ShippingAddress: recipient.ShippingAddress{
			Line1: "1 Main Street", City: "Springfield", State: "IL", Zip: "62701", Country: "US",
		},
	})
	if err != nil {
		t.Fatalf("claim recipient %s: %v", recipientID, err)
	}
	return r
}

// Ship records the shipment of a claimed recipient's order, as its
// fulfiller does (POST …/orders/{orderId}/shipments): the recipient is
// shipped, and may then be moved on by the status endpoint.
func Ship(t testing.TB, s *dynamo.Store, orgID, campaignID, recipientID string) recipient.Recipient {
	t.Helper()
	ctx := context.Background()
	r, err := Recipients(s).Get(ctx, orgID, campaignID, recipientID)
	if err != nil {
		t.Fatal(err)
	}
	orderID, _ := r.ShipmentInfo["orderId"].(string)
	if _, _, err := Recipients(s).Ship(ctx, orgID, orderID, fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: "1Z" + recipientID}); err != nil {
		t.Fatalf("ship recipient %s: %v", recipientID, err)
	}
	if r, err = Recipients(s).Get(ctx, orgID, campaignID, recipientID); err != nil {
		t.Fatal(err)
	}
	return r
}
