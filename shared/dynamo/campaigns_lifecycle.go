package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
)

// campaignMoving are the attributes of a live or paused campaign that
// change while it runs (its recipients move its counters): a lifecycle
// write is conditioned on none of them having changed since read, so the
// campaign it records in its change message is exactly the one it wrote.
var campaignMoving = []string{"status", "updatedAt", "totalRecipients", "liveData"}

// CommitMove writes a user's move p in one transaction: the campaign's new
// status, updatedAt, lastUpdatedBy and reason (and, completing it,
// completionData), conditioned on the attributes campaignMoving being as
// read (p.Seen), with the change record holding p's message; completing
// it, when some recipients are unclaimed, also makes the job that expires
// them due (expiryDue), so the tick runs the expiry if its message never
// comes. campaign.ErrMoved when the campaign changed since read.
func (s *Store) CommitMove(ctx context.Context, p campaign.MovePlan) error {
	stored, err := seenItem(p.Seen)
	if err != nil {
		return err
	}
	var tx txn
	if err := s.addCampaignMove(&tx, p.OrgID, p.Moved, stored); err != nil {
		return err
	}
	change, err := s.changePut(p.OrgID, p.Message)
	if err != nil {
		return err
	}
	tx.add("", change)
	if p.Moved.Status == campaign.Completed {
		if due := s.expiryDue(p.OrgID, p.Moved, s.Now()); due != nil {
			tx.add("", *due)
		}
	}
	err = s.transactRetrying(ctx, tx.items)
	if err != nil && tx.failed(cancellationReasons(err), condCampaign) {
		return fmt.Errorf("%w: %w", campaign.ErrMoved, err)
	}
	return err
}

// seenItem is the campaign item a plan was decided from (campaign.Read's
// Seen, as ReadCampaign returned it).
func seenItem(seen any) (item, error) {
	stored, ok := seen.(item)
	if !ok || stored == nil {
		return nil, fmt.Errorf("a campaign plan not decided from a campaign this store read (%T)", seen)
	}
	return stored, nil
}

// addCampaignMove adds to tx the write of moved's status, updatedAt,
// lastUpdatedBy, reason and (completing it) completionData, named
// condCampaign and conditioned on the attributes campaignMoving being as
// in stored.
func (s *Store) addCampaignMove(tx *txn, orgID string, moved campaign.Campaign, stored item) error {
	names := map[string]string{"#st": "status", "#reason": "reason"}
	values := item{
		":to": str(string(moved.Status)), ":now": str(moved.UpdatedAt.Format(time.RFC3339Nano)), ":user": str(moved.LastUpdatedBy),
		":reason": str(moved.Reason),
	}
	set := "SET #st = :to, updatedAt = :now, lastUpdatedBy = :user, #reason = :reason"
	if moved.Status == campaign.Completed {
		completion, err := marshalValue(completionDataItemOf(moved.CompletionData))
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
