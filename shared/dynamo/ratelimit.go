package dynamo

import (
	"context"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// CountRequest counts one request of orgID in class against the current
// fixed window of gifting.RateWindow. It is one UpdateItem (ADD, returning
// the new count): one write unit, and the count is shared by every Lambda
// instance. The counter expires through the table's TTL a window after its
// own.
func (s *Store) CountRequest(ctx context.Context, orgID string, class gifting.RateClass) (gifting.RequestCount, error) {
	now := s.now()
	start := now.Truncate(gifting.RateWindow)
	reset := start.Add(gifting.RateWindow)
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table,
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: orgPK(orgID)},
			"SK": &types.AttributeValueMemberS{Value: rateSK(string(class), start.Unix())},
		},
		UpdateExpression: aws.String("ADD n :one SET expiresAt = if_not_exists(expiresAt, :exp)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one": &types.AttributeValueMemberN{Value: "1"},
			":exp": &types.AttributeValueMemberN{Value: strconv.FormatInt(reset.Add(gifting.RateWindow).Unix(), 10)},
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return gifting.RequestCount{}, fmt.Errorf("count request %s/%s: %w", orgID, class, err)
	}
	n, ok := out.Attributes["n"].(*types.AttributeValueMemberN)
	if !ok {
		return gifting.RequestCount{}, fmt.Errorf("count request %s/%s: no count returned", orgID, class)
	}
	count, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return gifting.RequestCount{}, fmt.Errorf("count request %s/%s: %w", orgID, class, err)
	}
	return gifting.RequestCount{Count: count, Reset: reset}, nil
}

// SetRateLimits replaces an organization's own rate limits (requests per
// gifting.RateWindow by class; classes left out keep the defaults). It
// returns NOT_FOUND for an unknown organization and VALIDATION_FAILED for an
// unknown class or a limit below 1.
func (s *Store) SetRateLimits(ctx context.Context, orgID string, limits map[gifting.RateClass]int) error {
	var p gifting.Problems
	for class, n := range limits {
		if _, ok := gifting.DefaultRateLimits[class]; !ok {
			p.Add("rateLimits."+string(class), "is not a rate-limited class")
		} else if n < 1 {
			p.Add("rateLimits."+string(class), "must be at least 1")
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	av := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
	for class, n := range limits {
		av.Value[string(class)] = &types.AttributeValueMemberN{Value: strconv.Itoa(n)}
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table,
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: orgPK(orgID)},
			"SK": &types.AttributeValueMemberS{Value: profileSK},
		},
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		UpdateExpression:          aws.String("SET rateLimits = :l"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":l": av},
	})
	if isConditionFailed(err) {
		return gifting.NotFound("organization", orgID)
	}
	if err != nil {
		return fmt.Errorf("set rate limits of %s: %w", orgID, err)
	}
	return nil
}
