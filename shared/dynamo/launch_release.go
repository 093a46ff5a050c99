package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ReleaseHeldEmails makes every unclaimed recipient of a campaign whose
// emails the scheduler put off (recipient.EmailHold: added while the
// campaign was a draft) due now, so the next tick invites it (the
// campaign.Slices port). It reads the campaign's Slim partition filtered
// on the unclaimed statuses (UnclaimedRecipients, 100 at a time): run as
// the launch's first slice starts, before any launched recipient is
// written, that is the draft's own recipients. Each update is conditioned
// on the recipient being in the due index with a due time after now and
// on its having no launch slice (ls: a run of the first slice again finds
// that slice's recipients, whose invitations the launch sends itself), so
// a launched recipient, one due already, sent, or out of the due index is
// left as it is, and a second run changes nothing.
func (s *Store) ReleaseHeldEmails(ctx context.Context, orgID, campaignID string) error {
	now := s.Now()
	pk := orgPK(orgID)
	for cursor := ""; ; {
		ids, next, done, err := s.UnclaimedRecipients(ctx, orgID, campaignID, cursor)
		if err != nil {
			return err
		}
		for _, id := range ids {
			sk := recipientSK(campaignID, id)
			_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
				TableName:                 &s.table,
				Key:                       key(pk, sk),
				UpdateExpression:          aws.String("SET dueAt = :now"),
				ConditionExpression:       aws.String("attribute_exists(dueShard) AND dueAt > :upto AND attribute_not_exists(ls)"),
				ExpressionAttributeValues: item{":now": str(dueSK(now, pk, sk)), ":upto": str(dueUpTo(now))},
			})
			var cond *types.ConditionalCheckFailedException
			if err != nil && !errors.As(err, &cond) {
				return fmt.Errorf("release held emails: %w", err)
			}
		}
		if done {
			return nil
		}
		cursor = next
	}
}
