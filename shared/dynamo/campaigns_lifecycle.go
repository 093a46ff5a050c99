package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// MoveCampaign performs a user's lifecycle action (pause, resume,
// complete) on a campaign of org in one UpdateItem conditioned on the
// campaign being in one of the action's source states. It sets the new
// status, updatedAt, lastUpdatedBy (userID) and reason (why the campaign
// is in its new state; "" clears an earlier one). Completing also fills
// completionData: completedAt, completedBy, and totalRecipients,
// statusCounts, creditsSpent and feedbackCount copied from the campaign's
// own counters by the same write, so the snapshot is exact whatever
// recipient writes run at the same moment.
//
// It returns the campaign as written. Errors: NOT_FOUND for a missing,
// deleted or another organization's campaign; CONFLICT naming the current
// state when the action does not apply to it.
func (s *Store) MoveCampaign(ctx context.Context, orgID, campaignID string, act gifting.CampaignAction, userID, reason string) (gifting.Campaign, error) {
	now := s.Now().Format(time.RFC3339Nano)
	names := map[string]string{"#st": "status", "#reason": "reason"}
	values := item{":to": str(string(act.To)), ":now": str(now), ":user": str(userID), ":reason": str(reason)}
	set := "SET #st = :to, updatedAt = :now, lastUpdatedBy = :user, #reason = :reason"
	if act.To == gifting.CampaignCompleted {
		// completionData is an empty map from creation, so its members
		// can be set one by one, some copied from the item itself.
		set += ", completionData.completedAt = :now, completionData.completedBy = :user" +
			", completionData.totalRecipients = totalRecipients" +
			", completionData.statusCounts = liveData.statusCounts" +
			", completionData.creditsSpent = liveData.creditsSpent" +
			", completionData.feedbackCount = liveData.feedbackCount"
	}
	from := make([]string, len(act.From))
	for i, st := range act.From {
		v := ":from" + strconv.Itoa(i)
		values[v], from[i] = str(string(st)), v
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), campaignSK(campaignID)),
		UpdateExpression:          aws.String(set),
		ConditionExpression:       aws.String("attribute_exists(PK) AND #st IN (" + strings.Join(from, ", ") + ")"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
		ReturnValues:              types.ReturnValueAllNew,
	}
	for attempt := 1; ; attempt++ {
		out, err := s.db.UpdateItem(ctx, in)
		if isConditionFailed(err) {
			c, err := s.Campaign(ctx, orgID, campaignID)
			if err != nil {
				return c, err
			}
			if act.Allows(c.Status) && attempt < maxAttempts {
				// It moved away and back between the write and the
				// read (a pause and a resume): the action applies now.
				continue
			}
			return c, act.Refused(c.Status)
		}
		if err != nil {
			return gifting.Campaign{}, fmt.Errorf("%s campaign: %w", act.Name, err)
		}
		var c gifting.Campaign
		if err := unmarshal(out.Attributes, &c); err != nil {
			return c, err
		}
		c.Normalize()
		return c, nil
	}
}
