package dynamo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestReseedingTheCatalogKeepsItsStock: seed-catalog is documented as safe
// to run again, and a re-run (a deploy, an operator adding a gift to the
// catalog) must not give back the units recipients have claimed: a
// claimed catalog gift stays reserved and its available count stays down,
// available plus reserved within total, so no more units can be claimed
// than exist.
func TestReseedingTheCatalogKeepsItsStock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t) // the catalog is seeded once here
	orgID, _ := testenv.Org(t, s, "acme", 100)
	c := giftCampaign(t, s, orgID, 40)
	before, err := s.Gift(ctx, orgID, "gift-artisan-coffee")
	if err != nil {
		t.Fatal(err)
	}
	for _, email := range []string{"jane@example.com", "john@example.com"} {
		added, err := s.AddRecipient(ctx, addInput(orgID, c.CampaignID, email))
		if err != nil {
			t.Fatal(err)
		}
		testenv.Claim(t, s, orgID, c.CampaignID, added.Recipient.RecipientID)
	}
	claimed, err := s.Gift(ctx, orgID, "gift-artisan-coffee")
	if err != nil {
		t.Fatal(err)
	}
	if claimed.Inventory.Available != before.Inventory.Available-2 || claimed.Inventory.Reserved != before.Inventory.Reserved+2 {
		t.Fatalf("after two claims inventory = %+v, want two units moved from %+v", claimed.Inventory, before.Inventory)
	}

	if _, err := seed.SeedCatalog(ctx, s); err != nil {
		t.Fatal(err)
	}
	after, err := s.Gift(ctx, orgID, "gift-artisan-coffee")
	if err != nil {
		t.Fatal(err)
	}
	if after.Inventory != claimed.Inventory {
		t.Errorf("after re-seeding the catalog inventory = %+v, want the claimed %+v (the seed gave back reserved units)", after.Inventory, claimed.Inventory)
	}
	if inv := after.Inventory; inv.Available+inv.Reserved > inv.Total || inv.Available < 0 {
		t.Errorf("inventory %+v drifted: available plus reserved must stay within total", inv)
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}

// TestRecordOverTheItemLimitIsTooLarge: the API's field limits keep gifts
// and templates far below DynamoDB's 400 KB, but the store still answers a
// record over it (from a caller that skipped validation) with
// PAYLOAD_TOO_LARGE, not an internal error, and writes nothing.
func TestRecordOverTheItemLimitIsTooLarge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 0)
	g := catalog.Gift{GiftID: s.NewID(), OrganizationID: orgID, Name: "Hoodie", Price: 10, Currency: "USD", Status: catalog.GiftAvailable,
		Inventory: catalog.Inventory{Total: 1, Available: 1}, Description: strings.Repeat("d", 500_000)}
	if err := s.CommitNewGift(ctx, g); gifting.ErrorCode(err) != gifting.CodeTooLarge {
		t.Fatalf("a 500 KB gift: %v; want %s", err, gifting.CodeTooLarge)
	}
	if gifts, err := s.GiftsOf(ctx, []string{orgID}); err != nil || len(gifts) != 0 {
		t.Errorf("after a refused create: gifts %v, %v; want none", gifts, err)
	}
}
