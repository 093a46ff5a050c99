package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/gifting"
)

// AddedRecipientNotEmailed rewrites the stored idempotent response of an
// add-recipient (idem, nil when none) with emailSent false: its invitation
// could not go out at once. The recipient itself is not touched here: it
// was written pending with its invitation claimed, and the failure is
// recorded on the invitation (EmailFailed), which the scheduler retries.
// Only the record written with the recipient (same request hash) is
// replaced. It returns the response to give.
func (s *Store) AddedRecipientNotEmailed(ctx context.Context, orgID string, res gifting.AddRecipientResult, idem *gifting.Idempotent[gifting.AddedRecipient]) (gifting.AddedRecipient, error) {
	out := res.Response
	out.EmailSent = false
	if idem == nil {
		return out, nil
	}
	put, err := idempotentPut(s, orgID, idem, out)
	if err != nil {
		return out, err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: put.Put.TableName, Item: put.Put.Item,
		ConditionExpression:       aws.String("#hash = :hash"),
		ExpressionAttributeNames:  map[string]string{"#hash": "hash"},
		ExpressionAttributeValues: item{":hash": str(idem.Key.Hash)},
	})
	if err != nil && !isConditionFailed(err) {
		return out, fmt.Errorf("rewrite idempotent response: %w", err)
	}
	return out, nil
}
