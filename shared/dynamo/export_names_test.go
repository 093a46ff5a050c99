package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// UnkeyNames removes the name keys of a campaign's recipients and the
// campaign's mark, as the code before name keys left them.
func (s *Store) UnkeyNames(ctx context.Context, orgID, campaignID string) error {
	if err := s.updateRecipients(ctx, orgID, campaignID, func(item) (string, item) { return "REMOVE SSK", nil }); err != nil {
		return err
	}
	return s.ForgetNamesMark(ctx, orgID, campaignID, true)
}

// ForgetNamesMark removes (forget) or sets the campaign's name mark:
// without it, its last-name pages read the Slim partition again (the
// yardstick of the Sort partition's answers).
func (s *Store) ForgetNamesMark(ctx context.Context, orgID, campaignID string, forget bool) error {
	return s.setCampaignMark(ctx, orgID, campaignID, campaignNamesIndexed, forget)
}

// KeyStatusesAsFirstWritten gives a campaign's recipients the status keys
// the first code of decision 0010 wrote (OSK = the whole LSK) and its mark
// (rstx), as a table written by that code holds them.
func (s *Store) KeyStatusesAsFirstWritten(ctx context.Context, orgID, campaignID string) error {
	err := s.updateRecipients(ctx, orgID, campaignID, func(e item) (string, item) {
		return "SET OSK = :lsk", item{":lsk": str(attrS(e, "LSK"))}
	})
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: key(orgPK(orgID), campaignSK(campaignID)),
		UpdateExpression:          aws.String("REMOVE " + campaignStatusIndexed + " SET rstx = :one"),
		ExpressionAttributeValues: item{":one": str("1")}})
	return err
}
