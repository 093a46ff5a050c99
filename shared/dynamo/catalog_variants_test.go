package dynamo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestGiftEditSeesEachVariantsCounts: an edit of a gift with variants is
// conditioned on every variant's counts as read, not only the gift's sum:
// one size reserved and another released meanwhile leave the sum as it
// was, and a write over them would give the first size's unit back. The
// edit fails (catalog.ErrChanged: the slice reads again), and the one
// decided from the counts as they are then goes through.
func TestGiftEditSeesEachVariantsCounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 0)
	g, err := catalog.NewApp(s).CreateGift(ctx, orgID, catalog.Gift{Name: "Hoodie", Price: 30, Currency: "USD", Status: catalog.GiftAvailable,
		Variants: []catalog.Variant{{Name: "S", Inventory: catalog.Inventory{Total: 2, Available: 2}},
			{Name: "M", Inventory: catalog.Inventory{Total: 2, Available: 1, Reserved: 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	seen, err := s.OwnGift(ctx, orgID, g.GiftID)
	if err != nil {
		t.Fatal(err)
	}
	// A claim of S and a cancel of M's order, as their stock moves write
	// them: the gift's sum does not move.
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	_, err = testenv.Client(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.Table()),
		Key:                       map[string]types.AttributeValue{"PK": str("ORG#" + orgID), "SK": str("GIFT#" + g.GiftID)},
		UpdateExpression:          aws.String("SET vinv.#s.available = vinv.#s.available - :one, vinv.#s.reserved = vinv.#s.reserved + :one, vinv.#m.available = vinv.#m.available + :one, vinv.#m.reserved = vinv.#m.reserved - :one"),
		ExpressionAttributeNames:  map[string]string{"#s": g.Variants[0].VariantID, "#m": g.Variants[1].VariantID},
		ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	edit := seen
	edit.Name = "Team hoodie"
	if err := s.CommitGift(ctx, edit, seen); !errors.Is(err, catalog.ErrChanged) {
		t.Fatalf("an edit over moved variant counts: %v; want catalog.ErrChanged", err)
	}
	got, err := catalog.NewApp(s).UpdateGift(ctx, orgID, g.GiftID, catalog.GiftPatch{Name: aws.String("Team hoodie")})
	if err != nil {
		t.Fatal(err)
	}
	if sm := got.Variants[0].Inventory; got.Name != "Team hoodie" || sm.Available != 1 || sm.Reserved != 1 {
		t.Errorf("after the edit: %q, S %+v; want the name changed and S's reserved unit kept", got.Name, sm)
	}
}
