package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// stepSuppressionKeys names the suppression-keys step of `admin migrate`.
const stepSuppressionKeys = "suppression-keys"

// errNoSuppressionKey is a legacy suppression found by a migration run
// without the stack's key.
var errNoSuppressionKey = errors.New("suppressions under a plain hash need KMS_KEY_ID (the stack's SecretsKey) to be rekeyed")

// migrateSuppressionKeys rekeys org's suppressions written before the
// suppression key (SUPPRESS#<SHA-256 of the address>) to the keyed form
// (suppression_key.go), which it computes from the old key alone, so an
// entry whose address erasure removed is rekeyed too: one transaction
// per entry puts the same attributes under the new key and deletes the
// old one. Until it has run, lookups read both keys; after it, no plain
// hash of an address is left in the table. Resumable by its cursor;
// a run after a complete one walks the list and changes nothing.
func (s *Store) migrateSuppressionKeys(ctx context.Context, orgID string) (MigrationResult, error) {
	var r MigrationResult
	cur, err := s.migrationProgress(ctx, orgID, stepSuppressionKeys)
	if err != nil {
		return r, err
	}
	cur.Done = false
	for !cur.Done {
		in := &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true), Limit: aws.Int32(100),
			KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
			ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":p": str(suppressionPrefix)}}
		if cur.After != "" {
			in.ExclusiveStartKey = key(orgPK(orgID), cur.After)
		}
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return r, fmt.Errorf("query the suppression list: %w", err)
		}
		for _, it := range res.Items {
			if !isLegacySuppression(it) {
				continue
			}
			if s.supKey == nil {
				return r, errNoSuppressionKey
			}
			if err := s.rekeySuppression(ctx, orgID, it); err != nil {
				return r, err
			}
			r.Changed++
		}
		if len(res.Items) > 0 {
			cur.After = attrS(res.Items[len(res.Items)-1], "SK")
		}
		cur.Done = res.LastEvaluatedKey == nil
		if err := s.saveMigrationProgress(ctx, orgID, stepSuppressionKeys, cur); err != nil {
			return r, err
		}
	}
	// A later run walks again from the start: a store without the key
	// (a tool, a test) may have written a legacy entry since.
	cur.After = ""
	return r, s.saveMigrationProgress(ctx, orgID, stepSuppressionKeys, cur)
}

// rekeySuppression moves the legacy entry it to its keyed key. When the
// keyed entry exists already (the address was suppressed again through
// the keyed path), the legacy one is only deleted: the first is kept.
func (s *Store) rekeySuppression(ctx context.Context, orgID string, it item) error {
	legacy := attrS(it, "SK")
	keyed, err := s.keyedSuppressionSK(ctx, orgID, strings.TrimPrefix(legacy, suppressionPrefix))
	if err != nil {
		return err
	}
	moved := make(item, len(it))
	for k, v := range it {
		moved[k] = v
	}
	moved["SK"] = str(keyed)
	moved[hmacAttr] = str(hmacForm)
	del := types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: key(orgPK(orgID), legacy)}}
	err = s.transactRetrying(ctx, []types.TransactWriteItem{
		{Put: &types.Put{TableName: &s.table, Item: moved, ConditionExpression: aws.String("attribute_not_exists(PK)")}}, del})
	if reasons := cancellationReasons(err); len(reasons) > 0 && reasonCode(reasons, 0) == "ConditionalCheckFailed" {
		err = s.transactRetrying(ctx, []types.TransactWriteItem{del})
	}
	if err != nil {
		return fmt.Errorf("rekey a suppression: %w", err)
	}
	return nil
}
