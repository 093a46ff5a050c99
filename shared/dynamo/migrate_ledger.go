package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// stepLedgerIndex names the ledger step of `admin migrate`.
const stepLedgerIndex = "ledger-index"

// migrateLedgerIndex gives every ledger entry of org written before ledger
// entries had Slim entries its Slim keys (LPK = ledgerLPK, LSK = its sort
// key), 100 entries a page with the progress saved after each, then marks
// the wallet's ledger indexed, which lets deep ledger pages skip on the
// index (WalletStatementBefore). An organization whose wallet is marked
// already (created since, or migrated) is left alone. Run it once the
// deployment that writes the keys has finished: an entry that code from
// before it writes after the walk passed would be missing from the index.
func (s *Store) migrateLedgerIndex(ctx context.Context, orgID string) (MigrationResult, error) {
	var r MigrationResult
	var w walletItem
	found, err := s.get(ctx, orgPK(orgID), walletSK, &w)
	if err != nil || !found || w.LedgerIndexed {
		return r, err
	}
	cur, err := s.migrationProgress(ctx, orgID, stepLedgerIndex)
	if err != nil {
		return r, err
	}
	for !cur.Done {
		in := &dynamodb.QueryInput{
			TableName:                 &s.table,
			KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
			ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(ledgerPrefix)},
			ProjectionExpression:      aws.String("SK, LPK"),
			ConsistentRead:            aws.Bool(true),
			Limit:                     aws.Int32(100),
		}
		if cur.After != "" {
			in.ExclusiveStartKey = key(orgPK(orgID), cur.After)
		}
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return r, fmt.Errorf("query ledger: %w", err)
		}
		for _, it := range res.Items {
			if _, indexed := it["LPK"]; indexed {
				continue
			}
			changed, err := s.indexLedgerEntry(ctx, orgID, attrS(it, "SK"))
			if err != nil {
				return r, err
			}
			if changed {
				r.Changed++
			}
		}
		if len(res.Items) > 0 {
			cur.After = attrS(res.Items[len(res.Items)-1], "SK")
		}
		cur.Done = res.LastEvaluatedKey == nil
		if err := s.saveMigrationProgress(ctx, orgID, stepLedgerIndex, cur); err != nil {
			return r, err
		}
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), walletSK),
		UpdateExpression:          aws.String("SET lidx = :yes"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: item{":yes": &types.AttributeValueMemberBOOL{Value: true}},
	})
	if err != nil {
		return r, fmt.Errorf("mark the ledger indexed: %w", err)
	}
	return r, nil
}

// indexLedgerEntry writes the Slim keys of org's ledger entry sk, unless
// it has them (another run came first); changed reports that it wrote.
func (s *Store) indexLedgerEntry(ctx context.Context, orgID, sk string) (changed bool, err error) {
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), sk),
		UpdateExpression:          aws.String("SET LPK = :lpk, LSK = :sk"),
		ConditionExpression:       aws.String("attribute_exists(PK) AND attribute_not_exists(LPK)"),
		ExpressionAttributeValues: item{":lpk": str(ledgerLPK(orgID)), ":sk": str(sk)},
	})
	var failed *types.ConditionalCheckFailedException
	if errors.As(err, &failed) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("index ledger entry %s: %w", sk, err)
	}
	return true, nil
}
