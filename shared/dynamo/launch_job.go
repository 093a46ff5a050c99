package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/recipient"
)

// The storage of a launch's slices (campaign.Slices): the claim of a
// slice's members, the count of its recipients, the finish. What a slice
// claims, counts and refunds is campaign.DecideSlice's, DecideCount's and
// DecideFinish's; the recipients' writes are launch_write.go's.

// launchPutters is how many recipients (and contacts, joinCampaign) a slice
// writes at a time.
const launchPutters = 4

// LaunchWriteRate is the default pace of a launch (and of an audience
// build, whose members go to the same partition): the write units a
// second its recipients' puts and its contacts' updates (joinCampaign) may
// take from the organization's partition (ORG#<org>), which they all share:
// two units a launched recipient under 1 KB. DynamoDB gives one partition
// key 1,000 a second; the rest is left to the organization's other work. Each
// recipient also writes one Slim entry, into the campaign's own Slim
// partition, about half as much as into the table's; its Due and Pages
// entries spread over several keys.
const LaunchWriteRate = 800

// waitUnits waits until pace allows units write units, taking them in
// pieces of at most its burst (a limiter refuses a bigger one at once).
func waitUnits(ctx context.Context, pace *rate.Limiter, units int) error {
	for units > 0 {
		n := min(units, pace.Burst())
		if err := pace.WaitN(ctx, n); err != nil {
			return err
		}
		units -= n
	}
	return nil
}

// launchWriteBurst is the most write units a launch may take at once
// beyond its pace: the biggest single write of a slice (its record of
// which contacts it covers, its counters) fits.
const launchWriteBurst = 64

// WithLaunchWriteRate sets the pace of launches and audience builds in
// write units a second (LaunchWriteRate when not set).
func WithLaunchWriteRate(units float64) Option {
	return func(s *Store) { s.launchRate = units }
}

// launchPace is the pace of one run of a launch slice (campaign.Pace): its
// writes all go to the organization's partition.
type launchPace struct{ limiter *rate.Limiter }

func (p launchPace) Wait(ctx context.Context, units int) error {
	return waitUnits(ctx, p.limiter, units)
}

// NewPace is the pace of one run of a launch slice, at the store's launch
// write rate (WithLaunchWriteRate).
func (s *Store) NewPace() campaign.Pace {
	return launchPace{rate.NewLimiter(rate.Limit(s.launchRate), launchWriteBurst)}
}

// limiterOf is pace's limiter: the store's own pace (NewPace), or a new
// one for a pace from elsewhere.
func (s *Store) limiterOf(pace campaign.Pace) *rate.Limiter {
	if p, ok := pace.(launchPace); ok {
		return p.limiter
	}
	return s.NewPace().(launchPace).limiter
}

// WithIndexSettle makes a launch wait, before it reads its first list
// members from the Slim index, until d has passed since it was accepted:
// DynamoDB updates a global secondary index a moment after the table
// (typically well under a second), so a contact imported just before the
// launch would otherwise be missed (and its credits refunded). DynamoDB
// Local updates its indexes with the table, so only deployed stacks set it
// (app.NewStore: IndexSettle).
func WithIndexSettle(d time.Duration) Option {
	return func(s *Store) { s.indexSettle = d }
}

// IndexSettle is how long a deployed launch lets its lists' index catch up
// (WithIndexSettle).
const IndexSettle = 2 * time.Second

// AwaitIndex waits until the store's index settle time (WithIndexSettle)
// has passed since since: writes made before then have reached the Slim
// index the member pages come from.
func (s *Store) AwaitIndex(ctx context.Context, since time.Time) error {
	if wait := since.Add(s.indexSettle).Sub(s.Now()); wait > 0 {
		return sleep(ctx, min(wait, s.indexSettle))
	}
	return nil
}

// MemberPage reads up to limit member contact ids of org's list listID
// after the cursor after ("" from the start), and the cursor of the last
// ("" when none follows): listMemberPage.
func (s *Store) MemberPage(ctx context.Context, orgID, listID, after string, limit int) ([]string, string, error) {
	return s.listMemberPage(ctx, orgID, listID, after, limit)
}

// ClaimSlice records claim c on the launch record of campaignID (the
// member ids of the slice that starts at c.From and the cursor that
// follows it) and pushes the record's due time a lease ahead. It reports
// false when the record no longer is at c.From or another run claimed the
// slice first.
func (s *Store) ClaimSlice(ctx context.Context, orgID, campaignID string, c campaign.SliceClaim, pace campaign.Pace) (bool, error) {
	pk, sk := orgPK(orgID), launchSK(campaignID)
	idList := make([]types.AttributeValue, len(c.IDs))
	for i, id := range c.IDs {
		idList[i] = str(id)
	}
	cond := "attribute_not_exists(finishedAt) AND attribute_not_exists(sliceFrom) AND " + atCursor(c.From)
	values := item{":from": str(c.From), ":ids": &types.AttributeValueMemberL{Value: idList}, ":next": str(c.Next),
		":due": str(dueSK(s.Now().Add(DueLease), pk, sk))}
	if err := pace.Wait(ctx, sliceUnits(len(c.IDs))); err != nil {
		return false, fmt.Errorf("launch pace: %w", err)
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(pk, sk),
		UpdateExpression:          aws.String("SET sliceFrom = :from, sliceIds = :ids, sliceNext = :next, dueAt = :due"),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#cur": "cursor"},
		ExpressionAttributeValues: values,
	})
	if isConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim launch slice: %w", err)
	}
	return true, nil
}

// atCursor is the condition that the launch record is at cursor (:from);
// a record no slice has moved yet has no cursor attribute.
func atCursor(cursor string) string {
	if cursor == "" {
		return "(attribute_not_exists(#cur) OR #cur = :from)"
	}
	return "#cur = :from"
}

// CommitCount counts a slice (campaign.CountPlan) in one transaction: the
// campaign's counters (and its mirror of the launch's progress), the
// launch record's count of created recipients with its cursor moved on,
// its claim cleared and its due time a lease ahead, and the
// recipient.created messages. campaign.ErrSliceCounted when the record no
// longer holds the slice's claim, campaign.ErrCampaignStopped when the
// campaign no longer takes the recipients.
func (s *Store) CommitCount(ctx context.Context, p campaign.CountPlan, pace campaign.Pace) error {
	pk, sk := orgPK(p.OrgID), launchSK(p.CampaignID)
	now := p.Now.Format(time.RFC3339Nano)
	var tx txn
	values := item{":from": str(p.From), ":next": str(p.Next), ":now": str(now), ":n": num(p.Created),
		":room": num(p.Room), ":due": str(dueSK(p.Now.Add(DueLease), pk, sk))}
	tx.add(condLaunch, types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table,
		Key:       key(pk, sk),
		UpdateExpression: aws.String("SET #cur = :next, progressAt = :now, dueAt = :due " +
			"REMOVE sliceFrom, sliceIds, sliceNext ADD created :n"),
		ConditionExpression:       aws.String("attribute_not_exists(finishedAt) AND sliceFrom = :from AND created <= :room"),
		ExpressionAttributeNames:  map[string]string{"#cur": "cursor"},
		ExpressionAttributeValues: values,
	}})
	if p.Created > 0 {
		counters := s.campaignCounters(p.OrgID, p.CampaignID, p.Deltas, p.Spent, p.Inviting)
		if p.Progress {
			// The campaign's mirror of the record's count (launches
			// accepted before launchProgress existed have none).
			u := counters.Update
			u.UpdateExpression = aws.String(*u.UpdateExpression + ", launchProgress.created = launchProgress.created + :lpn, launchProgress.lastProgressAt = :lpnow")
			u.ExpressionAttributeValues[":lpn"], u.ExpressionAttributeValues[":lpnow"] = num(p.Created), str(now)
		}
		tx.add(condCampaign, counters)
		msgs, err := s.changePut(p.OrgID, p.Messages...)
		if err != nil {
			return err
		}
		// The month's usage counts the recipients the slice created, and
		// its report their invitations.
		tx.add("", msgs, s.usageAdd(p.OrgID, p.Now, addCounts(map[string]int64{usageRecipients: p.Created}, campaign.CreatedEvents(p.Deltas))))
	}
	// The record (it holds the slice's member ids), the campaign and the
	// usage item, each written twice by the transaction.
	if err := pace.Wait(ctx, 2*sliceUnits(p.Members)+2*campaignUnits+2); err != nil {
		return fmt.Errorf("launch pace: %w", err)
	}
	err := s.transactRetrying(ctx, tx.items)
	reasons := cancellationReasons(err)
	switch {
	case err == nil:
		return nil
	case tx.failed(reasons, condLaunch):
		return campaign.ErrSliceCounted
	case tx.failed(reasons, condCampaign):
		return fmt.Errorf("%w: %w", campaign.ErrCampaignStopped, err)
	}
	return fmt.Errorf("launch slice: %w", err)
}

// DropSlice deletes the recipients rs of slice sliceID that nothing has
// changed since they were written.
// Their search entries go with them, as do those of a recipient an
// earlier run deleted (the item gone): those of a recipient that changed
// stay.
func (s *Store) DropSlice(ctx context.Context, orgID, sliceID string, rs []campaign.SliceRecipient) error {
	var dropped []recipient.Recipient
	for _, r := range rs {
		_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: &s.table, Key: key(orgPK(orgID), recipientSK(r.Recipient.CampaignID, r.Recipient.RecipientID)),
			ConditionExpression:                 aws.String("ls = :slice AND ver = :one"),
			ExpressionAttributeValues:           item{":slice": str(sliceID), ":one": num(1)},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var cond *types.ConditionalCheckFailedException
		switch {
		case err == nil, errors.As(err, &cond) && cond.Item == nil:
			dropped = append(dropped, r.Recipient)
		case !isConditionFailed(err):
			return fmt.Errorf("drop launch recipient: %w", err)
		}
	}
	return s.writeRecipientWords(ctx, orgID, dropped, true, nil)
}

// CommitFinish ends a launch (campaign.FinishPlan) in one transaction: the
// campaign moves from preparing to live, the launch record (conditioned on
// the count the finish was decided from, so a slice still writing makes
// the finish wait and try again) is finished and leaves the due index,
// and with p.Wallet the refund goes back to the wallet with its ledger
// entry (commitPlan), which holds the campaign.live message; without, the
// message is a change record of its own. campaign.ErrFinishRaced when the
// campaign or the record changed since read.
func (s *Store) CommitFinish(ctx context.Context, p campaign.FinishPlan) error {
	now := str(p.Now.Format(time.RFC3339Nano))
	live := "SET #st = :live, updatedAt = :now, liveData.liveAt = :now"
	values := item{":live": str(string(campaign.Live)), ":preparing": str(string(campaign.Preparing)), ":now": now}
	if p.Progress {
		live += ", launchProgress.finishedAt = :now, launchProgress.lastProgressAt = :now, launchProgress.refunded = :refund"
		values[":refund"] = num(p.Refund)
	}
	items := []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       key(orgPK(p.OrgID), campaignSK(p.CampaignID)),
			UpdateExpression:          aws.String(live),
			ConditionExpression:       aws.String("attribute_exists(PK) AND #st = :preparing"),
			ExpressionAttributeNames:  map[string]string{"#st": "status"},
			ExpressionAttributeValues: values,
		}},
		{Update: &types.Update{
			TableName: &s.table,
			Key:       key(orgPK(p.OrgID), launchSK(p.CampaignID)),
			// Done: out of the due index.
			UpdateExpression:          aws.String("SET finishedAt = :now, progressAt = :now, refunded = :refund " + dueRemove),
			ConditionExpression:       aws.String("attribute_not_exists(finishedAt) AND created = :created"),
			ExpressionAttributeValues: item{":now": now, ":refund": num(p.Refund), ":created": num(p.Created)},
		}},
	}
	if p.Wallet != nil {
		return s.commitPlan(ctx, *p.Wallet, planWrites{items: items, changes: p.Messages,
			cancelled: func([]types.CancellationReason) error { return campaign.ErrFinishRaced }})
	}
	change, err := s.changePut(p.OrgID, p.Messages...)
	if err != nil {
		return err
	}
	err = s.transactRetrying(ctx, append(items, change))
	if cancellationReasons(err) != nil && !retryable(err) {
		return campaign.ErrFinishRaced
	}
	return err
}

// sliceUnits estimates the write units of a launch record that holds the
// claim of a slice of members member ids (about 30 bytes each).
func sliceUnits(members int) int { return 1 + members*30/1024 }

// campaignUnits estimates the write units of a campaign item.
const campaignUnits = 4

// writeUnits is the number of 1 KB write units a put of it takes: its
// size as DynamoDB counts it (names and values), rounded up.
func writeUnits(it item) int { return max(1, (ItemSize(it)+1023)/1024) }
