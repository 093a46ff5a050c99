package dynamo_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// TestWalletRefusesWrongChanges: whatever a caller computed, the wallet
// takes no debit that adds, no refund or top-up that takes, nothing beyond
// the bounds, and writes nothing when it refuses.
func TestWalletRefusesWrongChanges(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 1000)
	ctx := context.Background()
	change := func(typ wallet.EntryType, delta int64) dynamo.BalanceChange {
		return dynamo.BalanceChange{OrgID: orgID, Delta: delta, Entry: wallet.Entry{Type: typ, Reason: "test"}}
	}
	for _, tt := range []struct {
		name string
		c    dynamo.BalanceChange
		code gifting.Code
	}{
		{"a debit that adds (issue 11's wrapped launch)", change(wallet.Debit, 9_046_744_073_709_551_616/2), gifting.CodeInternal},
		{"a debit beyond any balance", change(wallet.Debit, -wallet.MaxBalance-1), gifting.CodeInternal},
		{"the most negative debit", change(wallet.Debit, -1<<63), gifting.CodeInternal},
		{"a refund that takes", change(wallet.Refund, -5), gifting.CodeInternal},
		{"an empty refund", change(wallet.Refund, 0), gifting.CodeInternal},
		{"a top-up that takes", change(wallet.TopUp, -5), gifting.CodeInternal},
		{"a top-up above the bound", change(wallet.TopUp, wallet.MaxTopUp+1), gifting.CodeInternal},
		{"an unknown type", change("gift", 5), gifting.CodeInternal},
		{"a refund past the most a wallet holds", change(wallet.Refund, wallet.MaxBalance), gifting.CodeInternal},
		{"a debit larger than the balance", change(wallet.Debit, -1001), gifting.CodeInsufficientCredits},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, _, err := s.ChangeBalance(ctx, tt.c)
			if gifting.ErrorCode(err) != tt.code {
				t.Fatalf("ChangeBalance = %+v, %v; want %s", w, err, tt.code)
			}
			assertWallet(t, s, orgID, 1000, 1)
		})
	}

	t.Run("allowed changes", func(t *testing.T) {
		for _, c := range []dynamo.BalanceChange{
			change(wallet.Debit, 0), // a recipient of a free campaign of the org's own gifts
			change(wallet.Debit, -1000),
			change(wallet.Refund, 400),
			change(wallet.TopUp, wallet.MaxTopUp),
		} {
			if _, _, err := s.ChangeBalance(ctx, c); err != nil {
				t.Fatalf("%s of %d: %v", c.Entry.Type, c.Delta, err)
			}
		}
		assertWallet(t, s, orgID, 400+wallet.MaxTopUp, 5)
	})

	t.Run("top-up bounds", func(t *testing.T) {
		for _, credits := range []int64{0, -1, wallet.MaxTopUp + 1} {
			_, _, err := wallet.NewApp(s).TopUp(ctx, orgID, credits, "test")
			if e, ok := err.(*gifting.Error); !ok || e.Code != gifting.CodeValidation || e.Details["credits"] == "" {
				t.Errorf("TopUp(%d) = %v; want VALIDATION_FAILED naming credits", credits, err)
			}
		}
		assertWallet(t, s, orgID, 400+wallet.MaxTopUp, 5)
	})
	testenv.AssertLedgerBalanced(t, s, orgID)
}

// TestWalletNeverPassesItsMost: top-ups stop at wallet.MaxBalance with a
// VALIDATION_FAILED naming credits, and a damaged balance out of range is
// never changed (so nothing computed from it can wrap around).
func TestWalletNeverPassesItsMost(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	ctx := context.Background()
	// Not testenv.Org: this wallet is damaged on purpose, its ledger will
	// not add up.
	const orgID = "acme"
	if _, _, err := access.NewApp(s).CreateOrg(ctx, access.NewOrg{OrgID: orgID, Name: "Acme"}); err != nil {
		t.Fatal(err)
	}
	setBalance := func(b string) {
		t.Helper()
		_, err := testenv.Client(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(s.Table()),
			Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, "SK": &types.AttributeValueMemberS{Value: "WALLET"},
			},
			UpdateExpression:          aws.String("SET balance = :b"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":b": &types.AttributeValueMemberN{Value: b}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}

	setBalance("999999999999000") // 10^15 - 1000, as if earned; the ledger is not the point here
	_, _, err := wallet.NewApp(s).TopUp(ctx, orgID, 1001, "one too many")
	if e, ok := err.(*gifting.Error); !ok || e.Code != gifting.CodeValidation || e.Details["credits"] == "" {
		t.Fatalf("TopUp past the most = %v; want VALIDATION_FAILED naming credits", err)
	}
	if w, _, err := wallet.NewApp(s).TopUp(ctx, orgID, 1000, "to the brim"); err != nil || w.Balance != wallet.MaxBalance {
		t.Fatalf("TopUp to the most = %+v, %v", w, err)
	}

	setBalance("9046744073709552616") // issue 11's minted balance
	for _, delta := range []int64{-1, 0} {
		if _, _, err := s.ChangeBalance(ctx, dynamo.BalanceChange{OrgID: orgID, Delta: delta,
			Entry: wallet.Entry{Type: wallet.Debit}}); gifting.ErrorCode(err) != gifting.CodeInternal {
			t.Errorf("debit %d of a damaged balance = %v; want INTERNAL", delta, err)
		}
	}
	if w, err := s.Wallet(ctx, orgID); err != nil || w.Balance != 9046744073709552616 {
		t.Errorf("damaged wallet changed: %+v, %v", w, err)
	}
	check, err := wallet.NewApp(s).VerifyLedger(ctx, orgID)
	if err != nil || check.OK {
		t.Errorf("VerifyLedger of a balance changed behind the ledger = %+v, %v; want not ok", check, err)
	}
}
