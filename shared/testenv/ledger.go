package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/wallet"
)

// AssertLedgerBalanced fails the test unless orgID's ledger sums to its
// wallet's balance (wallet.App.VerifyLedger, the check of `admin verify-ledger`)
// and the balance is not negative. Money tests end with it; Org registers
// it for every organization it creates.
//
// A difference is checked again for up to two seconds before it fails the
// test: work still finishing in the background (a launch job) may commit
// between VerifyLedger's reads, while money made or lost for good stays.
func AssertLedgerBalanced(t testing.TB, s *dynamo.Store, orgID string) {
	t.Helper()
	var check wallet.LedgerCheck
	for deadline := time.Now().Add(2 * time.Second); ; {
		var err error
		check, err = wallet.NewApp(s).VerifyLedger(context.Background(), orgID)
		if err != nil {
			t.Errorf("verify ledger of %s: %v", orgID, err)
			return
		}
		if (check.OK && check.Balance >= 0) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !check.OK || check.Balance < 0 {
		t.Errorf("ledger of %s does not add up: %+v", orgID, check)
	}
}

// UnindexLedger makes orgID's ledger as code from before ledger entries
// had Slim entries wrote it: every entry without LPK and LSK, the wallet
// without the mark of an indexed ledger, no progress of `admin migrate`'s
// ledger step.
func UnindexLedger(t testing.TB, s *dynamo.Store, orgID string) {
	t.Helper()
	ctx, db, table := context.Background(), Client(t), s.Table()
	pk := &types.AttributeValueMemberS{Value: "ORG#" + orgID}
	p := dynamodb.NewQueryPaginator(db, &dynamodb.QueryInput{
		TableName:              &table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": pk, ":p": &types.AttributeValueMemberS{Value: "LEDGER#"},
		},
		ProjectionExpression: aws.String("PK, SK"),
	})
	remove := func(k map[string]types.AttributeValue, attrs string) {
		t.Helper()
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table, Key: k, UpdateExpression: aws.String("REMOVE " + attrs)}); err != nil {
			t.Fatal(err)
		}
	}
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			remove(it, "LPK, LSK")
		}
	}
	remove(map[string]types.AttributeValue{"PK": pk, "SK": &types.AttributeValueMemberS{Value: "WALLET"}}, "lidx")
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]types.AttributeValue{
		"PK": pk, "SK": &types.AttributeValueMemberS{Value: "MIGRATE#ledger-index"}}}); err != nil {
		t.Fatal(err)
	}
}
