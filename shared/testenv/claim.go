package testenv

import (
	"context"
	"testing"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/recipient"
)

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
	r, err := s.ClaimGift(ctx, orgID, campaignID, recipientID, recipient.ClaimInput{
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
