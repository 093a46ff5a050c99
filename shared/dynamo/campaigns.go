package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// The campaign slice's storage: load and commit (shared/campaign decides).

// The store implements the campaign's port.
var _ campaign.Store = (*Store)(nil)

// counterCampaigns counts an organization's campaigns that are not deleted.
const counterCampaigns = "CAMPAIGN"

// LoadCampaign reads a campaign of org, normalized: campaign.ErrNotFound
// for a missing campaign, a deleted one and another organization's.
func (s *Store) LoadCampaign(ctx context.Context, orgID, campaignID string) (campaign.Campaign, error) {
	r, err := s.ReadCampaign(ctx, orgID, campaignID)
	return r.Campaign, err
}

// ReadCampaign reads a campaign as LoadCampaign does, with its item as
// stored as the condition of a write on it being unchanged since
// (unmovedSince).
func (s *Store) ReadCampaign(ctx context.Context, orgID, campaignID string) (campaign.Read, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: key(orgPK(orgID), campaignSK(campaignID)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return campaign.Read{}, fmt.Errorf("get campaign %s: %w", campaignID, err)
	}
	if out.Item == nil {
		return campaign.Read{}, campaign.ErrNotFound
	}
	c, err := decodeCampaign(out.Item)
	if err != nil {
		return campaign.Read{}, err
	}
	if c.IsDeleted {
		return campaign.Read{}, campaign.ErrNotFound
	}
	c.Normalize()
	return campaign.Read{Campaign: c, Seen: item(out.Item)}, nil
}

// CommitCreate writes p's draft (due in the due index when it is
// scheduled), the campaigns counter one more and p's response, in one
// transaction. A response whose key was answered first is
// *campaign.Answered (or IDEMPOTENCY_KEY_REUSED when that answer is
// another request's).
func (s *Store) CommitCreate(ctx context.Context, p campaign.CreatePlan) error {
	c := p.Campaign
	attrs := map[string]string{
		"PK": orgPK(p.OrgID), "SK": campaignSK(c.CampaignID),
		"LPK": campaignsLPK(p.OrgID), "LSK": campaignSK(c.CampaignID),
		// Every recipient it will have carries its status and name keys and
		// has its search entries.
		campaignStatusIndexed: "1",
		campaignNamesIndexed:  "1",
		campaignSearchIndexed: "1",
	}
	maps.Copy(attrs, scheduledLaunchDue(p.OrgID, c))
	it, err := withKey(campaignItemOf(c), attrs)
	if err != nil {
		return err
	}
	var tx txn
	tx.add(condCampaign, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")}})
	tx.add("", s.counterAdd(p.OrgID, counterCampaigns, 1))
	// The month's report counts the campaigns created in it.
	tx.add("", s.eventsAdd(p.OrgID, map[string]int64{campaign.EventCampaigns: 1})...)
	if r := p.Response; r != nil {
		put, err := s.idempotencyPut(p.OrgID, r.Key, r.Status, r.Body)
		if err != nil {
			return err
		}
		tx.add(condIdempotency, put)
	}
	err = s.transactRetrying(ctx, tx.items)
	if reasons := cancellationReasons(err); tx.failed(reasons, condIdempotency) {
		// The same key won a race with this request.
		if err := s.answered(p.Response.Key, tx, reasons); err != nil {
			return err
		}
		return fmt.Errorf("create campaign: idempotency record vanished")
	}
	if err != nil {
		return fmt.Errorf("create campaign: %w", err)
	}
	return nil
}

// answered is the outcome of a transaction whose idempotency item failed
// its condition: *campaign.Answered with the response that beat it
// (returned by the failed put), IDEMPOTENCY_KEY_REUSED when that response
// answers another request, nil when it expired meanwhile.
func (s *Store) answered(k gifting.IdempotencyKey, tx txn, reasons []types.CancellationReason) error {
	stored, err := s.storedFor(k, tx.old(reasons, condIdempotency))
	if err != nil || stored == nil {
		return err
	}
	return &campaign.Answered{Stored: *stored}
}

// CommitEdit writes the fields a draft's owner edits (name, description,
// campaignData) and who edited it when, conditioned on a draft; the
// counters are not written, so recipients added meanwhile still count.
// With p.Rescheduled the draft's place in the due index moves with the
// edit, in the same write; without, it is left as it is. With p.Repriced
// the write is also conditioned on the draft having no recipient. It
// returns the campaign as written; campaign.ErrHasRecipients when a
// repriced draft has recipients, campaign.ErrMoved when the campaign is no
// longer a draft or is gone.
func (s *Store) CommitEdit(ctx context.Context, p campaign.EditPlan) (campaign.Campaign, error) {
	c := p.Campaign
	data, err := marshal(campaignDataItemOf(c.CampaignData))
	if err != nil {
		return c, err
	}
	values := item{
		":name": str(c.Name), ":desc": str(c.Description), ":data": &types.AttributeValueMemberM{Value: data},
		":now": str(p.Now.Format(time.RFC3339Nano)), ":user": str(p.UserID), ":draft": str(string(campaign.Draft)),
	}
	update := "SET #name = :name, description = :desc, campaignData = :data, updatedAt = :now, lastUpdatedBy = :user"
	switch due := scheduledLaunchDue(p.OrgID, c); {
	case !p.Rescheduled:
	case due != nil:
		for k, v := range due {
			update += ", " + k + " = :" + k
			values[":"+k] = str(v)
		}
	default:
		update += " " + dueRemove
	}
	cond := "attribute_exists(PK) AND #st = :draft"
	if p.Repriced {
		cond += " AND (attribute_not_exists(totalRecipients) OR totalRecipients = :none)"
		values[":none"] = num(0)
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           &s.table,
		Key:                                 key(orgPK(p.OrgID), campaignSK(c.CampaignID)),
		UpdateExpression:                    aws.String(update),
		ConditionExpression:                 aws.String(cond),
		ExpressionAttributeNames:            map[string]string{"#name": "name", "#st": "status"},
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if isConditionFailed(err) {
		return c, editRefused(err, p.Repriced)
	}
	if err != nil {
		return c, fmt.Errorf("update campaign: %w", err)
	}
	return decodeCampaign(out.Attributes)
}

// editRefused is the outcome of an edit whose condition failed, from the
// campaign as DynamoDB found it: campaign.ErrHasRecipients when a repriced
// draft has recipients, campaign.ErrMoved otherwise.
func editRefused(err error, repriced bool) error {
	var failed *types.ConditionalCheckFailedException
	if repriced && errors.As(err, &failed) && failed.Item != nil {
		if was, derr := decodeCampaign(failed.Item); derr == nil && !was.IsDeleted && was.Status == campaign.Draft && was.TotalRecipients > 0 {
			return campaign.ErrHasRecipients
		}
	}
	return campaign.ErrMoved
}

// scheduledLaunchDue are the due attributes of draft c of org when it has
// a scheduledAt (the scheduler launches it then), nil when it has none.
func scheduledLaunchDue(orgID string, c campaign.Campaign) map[string]string {
	at := c.CampaignData.ScheduledAt
	if at == nil {
		return nil
	}
	return dueAttrs(gifting.JobScheduledLaunch, c.CampaignID, orgPK(orgID), campaignSK(c.CampaignID), *at)
}

// ScheduledLaunchFailed records why the scheduled launch of a draft could
// not happen (reason) and takes it out of the due index, so it is not
// tried again until its schedule is set anew. A campaign no longer a draft
// is left alone.
func (s *Store) ScheduledLaunchFailed(ctx context.Context, orgID, campaignID, reason string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), campaignSK(campaignID)),
		UpdateExpression:          aws.String("SET reason = :reason " + dueRemove),
		ConditionExpression:       aws.String("#st = :draft"),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: item{":reason": str(reason), ":draft": str(string(campaign.Draft))},
	})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("record failed scheduled launch: %w", err)
	}
	return nil
}

// CommitDelete soft-deletes a campaign in one transaction: the item moves
// out of the CAMPAIGN# range (and the Slim index) to DELCAMPAIGN#, as
// p.Deleted (isDeleted set), so lists never see it and their pages keep
// their size; the campaigns counter drops by one. Recipients stay stored;
// when some are unclaimed, the job that expires them with their refunds is
// made due in the same transaction (expiryDue). The archived copy must be
// the item as it was: the delete is conditioned on nothing having changed
// it since it was read (a recipient added, claimed or moved: its status
// counts), campaign.ErrMoved otherwise.
func (s *Store) CommitDelete(ctx context.Context, p campaign.DeletePlan) error {
	c := p.Deleted
	it, err := withKey(campaignItemOf(c), map[string]string{"PK": orgPK(p.OrgID), "SK": deletedCampaignSK(c.CampaignID)})
	if err != nil {
		return err
	}
	stored, err := seenItem(p.Seen)
	if err != nil {
		return err
	}
	names, values := map[string]string{}, item{}
	items := []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName:                 &s.table,
			Key:                       key(orgPK(p.OrgID), campaignSK(c.CampaignID)),
			ConditionExpression:       aws.String(strings.Join(unmovedSince(stored, names, values), " AND ")),
			ExpressionAttributeNames:  names,
			ExpressionAttributeValues: values,
		}},
		{Put: &types.Put{TableName: &s.table, Item: it}},
		s.counterAdd(p.OrgID, counterCampaigns, -1),
	}
	// Its recipients can no longer claim: the unclaimed ones expire now,
	// due in the same transaction (expiryDue).
	if due := s.expiryDue(p.OrgID, c, s.Now()); due != nil {
		items = append(items, *due)
	}
	err = s.transactRetrying(ctx, items)
	if err != nil && deleteMoved(err) {
		return fmt.Errorf("%w: %w", campaign.ErrMoved, err)
	}
	return err
}

// deleteMoved reports whether a delete's transaction failed on its
// condition that the campaign is as read.
func deleteMoved(err error) bool {
	return reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed"
}
