package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// putNew writes a new item into org's partition; it never overwrites.
func (s *Store) putNew(ctx context.Context, orgID, sk string, v any) error {
	it, err := withKey(v, map[string]string{"PK": orgPK(orgID), "SK": sk})
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	if err != nil {
		return fmt.Errorf("put %s: %w", sk, err)
	}
	return nil
}

// batchWrite writes requests in batches of 25, retrying unprocessed ones.
func (s *Store) batchWrite(ctx context.Context, writes []types.WriteRequest) error {
	for start := 0; start < len(writes); start += 25 {
		pending := writes[start:min(start+25, len(writes))]
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				if err := sleep(ctx, backoff(attempt)); err != nil {
					return err
				}
			}
			out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{s.table: pending},
			})
			if err != nil {
				return fmt.Errorf("batch write: %w", err)
			}
			pending = out.UnprocessedItems[s.table]
		}
	}
	return nil
}
