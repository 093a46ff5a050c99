package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// campaignActionChanges are the change types of the user's campaign
// actions, by action name.
var campaignActionChanges = map[string]string{
	gifting.CampaignPause.Name:    gifting.ChangeCampaignPaused,
	gifting.CampaignResume.Name:   gifting.ChangeCampaignResumed,
	gifting.CampaignComplete.Name: gifting.ChangeCampaignCompleted,
}

// campaignMoving are the attributes of a live or paused campaign that
// change while it runs (its recipients move its counters): a lifecycle
// write is conditioned on none of them having changed since read, so the
// campaign it records in its change message is exactly the one it wrote.
var campaignMoving = []string{"status", "updatedAt", "totalRecipients", "liveData"}

// MoveCampaign performs a user's lifecycle action (pause, resume,
// complete) on a campaign of org: it reads the campaign and, when the
// action applies to its state, writes the new status, updatedAt,
// lastUpdatedBy (userID) and reason (why the campaign is in its new state;
// "" clears an earlier one) in one transaction with the change record
// (campaign.paused, campaign.resumed, campaign.completed) holding the
// campaign as written. Completing also fills completionData: completedAt,
// completedBy, and totalRecipients, statusCounts, creditsSpent and
// feedbackCount copied from the campaign's own counters; and, when some
// recipients are unclaimed, makes the job that expires them due
// (expiryDue). The write is
// conditioned on the campaign being unchanged since read, so that copy
// and the recorded campaign are exact whatever recipient writes run at the
// same moment; one that lands in between makes it read and try again.
//
// It returns the campaign as written. Errors: NOT_FOUND for a missing,
// deleted or another organization's campaign; CONFLICT naming the current
// state when the action does not apply to it. A refused action writes
// nothing, so it has no change record.
func (s *Store) MoveCampaign(ctx context.Context, orgID, campaignID string, act gifting.CampaignAction, userID, reason string) (gifting.Campaign, error) {
	for attempt := 1; ; attempt++ {
		c, stored, err := s.campaignAsStored(ctx, orgID, campaignID)
		if err != nil {
			return c, err
		}
		if !act.Allows(c.Status) {
			return c, act.Refused(c.Status)
		}
		moved := c.Moved(act, s.Now(), userID, reason)
		var tx txn
		if err := s.addCampaignMove(&tx, orgID, moved, stored); err != nil {
			return c, err
		}
		change, err := s.changePut(orgID, gifting.NewChange(campaignActionChanges[act.Name], moved))
		if err != nil {
			return c, err
		}
		tx.add("", change)
		if moved.Status == gifting.CampaignCompleted {
			// Its unclaimed recipients expire now (JobCampaignExpire): due
			// in the same transaction, so the tick runs the expiry if its
			// message never comes.
			if due := s.expiryDue(orgID, moved, s.Now()); due != nil {
				tx.add("", *due)
			}
		}
		err = s.transactRetrying(ctx, tx.items)
		if err == nil {
			return moved, nil
		}
		if !tx.failed(cancellationReasons(err), condCampaign) {
			return c, fmt.Errorf("%s campaign: %w", act.Name, err)
		}
		if attempt >= maxAttempts {
			return c, gifting.Errorf(gifting.CodeConflict, "campaign %s kept changing while being %s; try again", campaignID, act.Done)
		}
		// It changed since read (a recipient, another action): read again
		// and decide again.
	}
}

// addCampaignMove adds to tx the write of moved's status, updatedAt,
// lastUpdatedBy, reason and (completing it) completionData, named condCampaign and
// conditioned on the attributes campaignMoving being as in stored.
func (s *Store) addCampaignMove(tx *txn, orgID string, moved gifting.Campaign, stored item) error {
	names := map[string]string{"#st": "status", "#reason": "reason"}
	values := item{
		":to": str(string(moved.Status)), ":now": str(moved.UpdatedAt.Format(time.RFC3339Nano)), ":user": str(moved.LastUpdatedBy),
		":reason": str(moved.Reason),
	}
	set := "SET #st = :to, updatedAt = :now, lastUpdatedBy = :user, #reason = :reason"
	if moved.Status == gifting.CampaignCompleted {
		completion, err := marshalValue(moved.CompletionData)
		if err != nil {
			return err
		}
		set, values[":completion"] = set+", completionData = :completion", completion
	}
	conds := append([]string{"attribute_exists(PK)"}, unmovedSince(stored, names, values)...)
	tx.add(condCampaign, types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), campaignSK(moved.CampaignID)),
		UpdateExpression:          aws.String(set),
		ConditionExpression:       aws.String(strings.Join(conds, " AND ")),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}})
	return nil
}

// unmovedSince returns the conditions that the attributes campaignMoving
// are as in stored, adding their names and values to names and values.
func unmovedSince(stored item, names map[string]string, values item) []string {
	var conds []string
	for i, a := range campaignMoving {
		n, v := fmt.Sprintf("#m%d", i), fmt.Sprintf(":m%d", i)
		names[n] = a
		if old, ok := stored[a]; ok {
			conds, values[v] = append(conds, n+" = "+v), old
		} else {
			conds = append(conds, "attribute_not_exists("+n+")")
		}
	}
	return conds
}

// campaignAsStored returns campaign id of org as Campaign does, and its
// item as stored.
func (s *Store) campaignAsStored(ctx context.Context, orgID, campaignID string) (gifting.Campaign, item, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: key(orgPK(orgID), campaignSK(campaignID)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return gifting.Campaign{}, nil, fmt.Errorf("get campaign %s: %w", campaignID, err)
	}
	var c gifting.Campaign
	if out.Item != nil {
		if err := unmarshal(out.Item, &c); err != nil {
			return c, nil, err
		}
	}
	if out.Item == nil || c.IsDeleted {
		return gifting.Campaign{}, nil, gifting.NotFound("campaign", campaignID)
	}
	c.Normalize()
	return c, out.Item, nil
}
