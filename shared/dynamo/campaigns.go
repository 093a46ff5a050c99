package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// Campaign returns a campaign of org. A missing campaign, a deleted one and
// another organization's are all NOT_FOUND.
func (s *Store) Campaign(ctx context.Context, orgID, campaignID string) (gifting.Campaign, error) {
	var c gifting.Campaign
	found, err := s.get(ctx, orgPK(orgID), campaignSK(campaignID), &c)
	if err != nil {
		return c, err
	}
	if !found || c.IsDeleted {
		return gifting.Campaign{}, gifting.NotFound("campaign", campaignID)
	}
	c.Normalize()
	return c, nil
}

// UpdateCampaign stores the fields a draft's owner edits (name,
// description, campaignData) of c, which must be validated and its
// references checked. It returns NOT_FOUND for a missing or deleted
// campaign and CONFLICT when the campaign is no longer a draft. The
// counters are not written, so recipients added meanwhile still count.
// With rescheduled (the edit changed scheduledAt) the draft's place in the
// due index moves with it, in the same write; without, it is left as it
// is, so a scheduled launch the scheduler refused (ScheduledLaunchFailed)
// is not tried again by an edit of anything else.
//
// With repriced (the edit changed the gifts or the price) the write is
// conditioned on the draft having no recipient, and fails with
// gifting.ErrCampaignHasRecipients when one was added since the read.
func (s *Store) UpdateCampaign(ctx context.Context, orgID string, c gifting.Campaign, userID string, rescheduled, repriced bool) (gifting.Campaign, error) {
	data, err := marshal(c.CampaignData)
	if err != nil {
		return c, err
	}
	values := item{
		":name": str(c.Name), ":desc": str(c.Description), ":data": &types.AttributeValueMemberM{Value: data},
		":now": str(s.Now().Format(time.RFC3339Nano)), ":user": str(userID), ":draft": str(string(gifting.CampaignDraft)),
	}
	// A new schedule moves with the edit, in the same write.
	update := "SET #name = :name, description = :desc, campaignData = :data, updatedAt = :now, lastUpdatedBy = :user"
	switch due := scheduledLaunchDue(orgID, c); {
	case !rescheduled:
	case due != nil:
		for k, v := range due {
			update += ", " + k + " = :" + k
			values[":"+k] = str(v)
		}
	default:
		update += " " + dueRemove
	}
	cond := "attribute_exists(PK) AND #st = :draft"
	if repriced {
		cond += " AND (attribute_not_exists(totalRecipients) OR totalRecipients = :none)"
		values[":none"] = num(0)
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           &s.table,
		Key:                 key(orgPK(orgID), campaignSK(c.CampaignID)),
		UpdateExpression:    aws.String(update),
		ConditionExpression: aws.String(cond),
		ExpressionAttributeNames: map[string]string{
			"#name": "name", "#st": "status",
		},
		ExpressionAttributeValues:           values,
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	if isConditionFailed(err) {
		var (
			failed *types.ConditionalCheckFailedException
			was    gifting.Campaign
		)
		if repriced && errors.As(err, &failed) && failed.Item != nil && unmarshal(failed.Item, &was) == nil &&
			!was.IsDeleted && was.Status == gifting.CampaignDraft && was.TotalRecipients > 0 {
			return c, gifting.ErrCampaignHasRecipients
		}
		return c, s.campaignStateError(ctx, orgID, c.CampaignID, "edited")
	}
	if err != nil {
		return c, fmt.Errorf("update campaign: %w", err)
	}
	var updated gifting.Campaign
	if err := unmarshal(out.Attributes, &updated); err != nil {
		return c, err
	}
	updated.Normalize()
	return updated, nil
}

// scheduledLaunchDue are the due attributes of draft c of org when it has
// a scheduledAt (the scheduler launches it then), nil when it has none.
func scheduledLaunchDue(orgID string, c gifting.Campaign) map[string]string {
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
		ExpressionAttributeValues: item{":reason": str(reason), ":draft": str(string(gifting.CampaignDraft))},
	})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("record failed scheduled launch: %w", err)
	}
	return nil
}

// campaignStateError explains why a write conditioned on a draft failed:
// NOT_FOUND, or CONFLICT naming the campaign's current state.
func (s *Store) campaignStateError(ctx context.Context, orgID, campaignID, what string) error {
	c, err := s.Campaign(ctx, orgID, campaignID)
	if err != nil {
		return err
	}
	return c.NotDraft(what)
}

// DeleteCampaign soft-deletes a campaign of org: the item moves out of the
// CAMPAIGN# range (and the Slim index) to DELCAMPAIGN#, with isDeleted set,
// so lists never see it and their pages keep their size; the campaigns
// counter drops by one in the same transaction. Recipients stay stored;
// when some are unclaimed, the job that expires them with their refunds
// is made due in the same transaction (expiryDue). It
// returns NOT_FOUND for a missing or deleted campaign and CONFLICT while a
// launch is preparing it (the launch job writes to it).
func (s *Store) DeleteCampaign(ctx context.Context, orgID, campaignID, userID string) (gifting.Campaign, error) {
	for attempt := 1; ; attempt++ {
		c, stored, err := s.campaignAsStored(ctx, orgID, campaignID)
		if err != nil {
			return c, err
		}
		if c.Status == gifting.CampaignPreparing {
			return c, gifting.Errorf(gifting.CodeConflict, "campaign is preparing; wait until its launch is done before deleting it")
		}
		c.IsDeleted, c.UpdatedAt, c.LastUpdatedBy = true, s.Now(), userID
		it, err := withKey(c, map[string]string{"PK": orgPK(orgID), "SK": deletedCampaignSK(campaignID)})
		if err != nil {
			return c, err
		}
		names, values := map[string]string{}, item{}
		items := []types.TransactWriteItem{
			// The archived copy must be the item as it was: nothing may
			// have changed it (a recipient added, claimed or moved: its
			// status counts) since it was read.
			{Delete: &types.Delete{
				TableName:                 &s.table,
				Key:                       key(orgPK(orgID), campaignSK(campaignID)),
				ConditionExpression:       aws.String(strings.Join(unmovedSince(stored, names, values), " AND ")),
				ExpressionAttributeNames:  names,
				ExpressionAttributeValues: values,
			}},
			{Put: &types.Put{TableName: &s.table, Item: it}},
			s.counterAdd(orgID, counterCampaigns, -1),
		}
		// Its recipients can no longer claim: the unclaimed ones expire
		// now, due in the same transaction (expiryDue).
		if due := s.expiryDue(orgID, c, s.Now()); due != nil {
			items = append(items, *due)
		}
		err = s.transactRetrying(ctx, items)
		if err == nil {
			return c, nil
		}
		// The campaign changed since it was read: a recipient added,
		// moved, or its invitation recorded (each moves the counters).
		// Read it again, after a pause, as long as a busy campaign needs.
		if reasonCode(cancellationReasons(err), 0) != "ConditionalCheckFailed" || attempt >= maxAttempts {
			return c, fmt.Errorf("delete campaign: %w", err)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return c, err
		}
	}
}

// CampaignCounterUpdate is the transaction item that counts delta more
// recipients in status (negative to count fewer) and credits more spent on
// campaignID. It is conditioned on the campaign existing, not being deleted
// and accepting recipients (gifting.Campaign.AcceptsRecipients), so a
// recipient is never written for a campaign that cannot take it: the
// transaction is cancelled with ConditionalCheckFailed at this item. When
// it counts invited recipients the campaign must also be sending
// (gifting.InvitingStates): a campaign paused since it was read cancels
// the write, and the writer reads it again and writes them pending.
func (s *Store) CampaignCounterUpdate(orgID, campaignID string, status gifting.RecipientStatus, delta int64, credits int64) types.TransactWriteItem {
	return s.campaignCounters(orgID, campaignID, map[gifting.RecipientStatus]int64{status: delta}, credits, false)
}

// CampaignStatusMove is the transaction item that moves one recipient of
// campaignID from one status to another in the campaign's counters. It is
// conditioned on the campaign existing; the campaign's own state does not
// matter (recipients of a completed campaign still get their gifts).
func (s *Store) CampaignStatusMove(orgID, campaignID string, from, to gifting.RecipientStatus) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:           &s.table,
		Key:                 key(orgPK(orgID), campaignSK(campaignID)),
		UpdateExpression:    aws.String("SET liveData.statusCounts.#from = liveData.statusCounts.#from - :one, liveData.statusCounts.#to = liveData.statusCounts.#to + :one"),
		ConditionExpression: aws.String("attribute_exists(PK)"),
		ExpressionAttributeNames: map[string]string{
			"#from": string(from), "#to": string(to),
		},
		ExpressionAttributeValues: item{":one": num(1)},
	}}
}

// CampaignFeedbackAdd is the transaction item that counts delta more
// recipients of campaignID with feedback. It is conditioned on the campaign
// existing.
func (s *Store) CampaignFeedbackAdd(orgID, campaignID string, delta int64) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), campaignSK(campaignID)),
		UpdateExpression:          aws.String("SET liveData.feedbackCount = liveData.feedbackCount + :d"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: item{":d": num(delta)},
	}}
}

// campaignCounters is the transaction item that adds deltas to the status
// counts and their sum to totalRecipients, and credits to creditsSpent, on
// a campaign that accepts recipients (and is sending, when deltas count
// invited ones or inviting says the recipients' invitations are claimed to
// go out at once; see CampaignCounterUpdate). A transaction may touch the
// campaign item only once, so batches of recipients use one item for all
// of them.
func (s *Store) campaignCounters(orgID, campaignID string, deltas map[gifting.RecipientStatus]int64, credits int64, inviting bool) types.TransactWriteItem {
	names := map[string]string{"#st": "status"}
	values := item{":cr": num(credits), ":false": &types.AttributeValueMemberBOOL{Value: false}}
	expr := "SET liveData.creditsSpent = liveData.creditsSpent + :cr"
	var total int64
	statuses := make([]gifting.RecipientStatus, 0, len(deltas))
	for st := range deltas {
		statuses = append(statuses, st)
	}
	slices.Sort(statuses) // a stable expression, easier to read in logs
	for i, st := range statuses {
		n, v := "#s"+strconv.Itoa(i), ":d"+strconv.Itoa(i)
		names[n], values[v] = string(st), num(deltas[st])
		expr += fmt.Sprintf(", liveData.statusCounts.%s = liveData.statusCounts.%s + %s", n, n, v)
		total += deltas[st]
	}
	values[":total"] = num(total)
	expr += ", totalRecipients = totalRecipients + :total"
	states := gifting.RecipientStatesAccepting
	if inviting || deltas[gifting.RecipientInviteSent] > 0 {
		states = gifting.InvitingStates
	}
	cond := "attribute_exists(PK) AND isDeleted = :false AND #st IN ("
	for i, st := range states {
		v := ":a" + strconv.Itoa(i)
		values[v] = str(string(st))
		if i > 0 {
			cond += ", "
		}
		cond += v
	}
	cond += ")"
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), campaignSK(campaignID)),
		UpdateExpression:          aws.String(expr),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	}}
}

// counterCampaigns counts an organization's campaigns that are not deleted.
const counterCampaigns = "CAMPAIGN"

// CreateCampaign stores a new draft campaign of org. c must be validated
// and its references checked; ids, ownership, state, counters and
// timestamps are set here.
func (s *Store) CreateCampaign(ctx context.Context, orgID string, c gifting.Campaign) (gifting.Campaign, error) {
	c, _, err := s.CreateCampaignIdempotent(ctx, orgID, c, nil)
	return c, err
}

// CreateCampaignIdempotent is CreateCampaign under an idempotency key (nil:
// none). When the key was already used for the same request it writes
// nothing and returns the stored response; for another request,
// IDEMPOTENCY_KEY_REUSED.
func (s *Store) CreateCampaignIdempotent(ctx context.Context, orgID string, c gifting.Campaign, idem *gifting.Idempotent[gifting.Campaign]) (gifting.Campaign, *gifting.StoredResponse, error) {
	if stored, err := s.IdempotentReplay(ctx, orgID, idem.KeyOf()); stored != nil || err != nil {
		return c, stored, err
	}
	now := s.Now()
	c.CampaignID, c.OrganizationID, c.Status, c.IsDeleted = s.NewID(), orgID, gifting.CampaignDraft, false
	c.CreatedAt, c.UpdatedAt, c.LastUpdatedBy = now, now, c.CreatedBy
	c.TotalRecipients = 0
	c.LiveData = gifting.LiveData{StatusCounts: gifting.NewStatusCounts()}
	c.CompletionData = gifting.CompletionData{}
	c.Normalize()
	attrs := map[string]string{
		"PK": orgPK(orgID), "SK": campaignSK(c.CampaignID),
		"LPK": campaignsLPK(orgID), "LSK": campaignSK(c.CampaignID),
	}
	maps.Copy(attrs, scheduledLaunchDue(orgID, c))
	it, err := withKey(c, attrs)
	if err != nil {
		return c, nil, err
	}
	var tx txn
	tx.add(condCampaign, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")}})
	tx.add("", s.counterAdd(orgID, counterCampaigns, 1))
	if idem != nil {
		put, err := idempotentPut(s, orgID, idem, c)
		if err != nil {
			return c, nil, err
		}
		tx.add(condIdempotency, put)
	}
	err = s.transactRetrying(ctx, tx.items)
	if reasons := cancellationReasons(err); tx.failed(reasons, condIdempotency) {
		// The same key won a race with this request.
		err = s.lostTo(idem.Key, tx, reasons)
		if err == nil {
			err = fmt.Errorf("create campaign: idempotency record vanished")
		}
	} else if err != nil {
		err = fmt.Errorf("create campaign: %w", err)
	}
	if stored, err := replayOf(err); stored != nil || err != nil {
		return c, stored, err
	}
	return c, nil, nil
}

// transactRetrying runs a transaction, retrying conflicts and throttling.
// Each retry gives the transaction's change record a new id from the
// store's clock (restampChanges): the retries can outlast FeedLag, and a
// record committed with the id of its first attempt could sort before a
// cursor the change feed has already served.
func (s *Store) transactRetrying(ctx context.Context, items []types.TransactWriteItem) error {
	for attempt := 1; ; attempt++ {
		err := s.transact(ctx, s.NewID(), items)
		if err == nil || !retryable(err) || attempt >= maxAttempts {
			return err
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
		if items, err = s.restampChanges(items); err != nil {
			return err
		}
	}
}

// inProgressResends bounds the resends of a transaction DynamoDB still
// runs (transact): a few, well within FeedLag of the change record the
// transaction carries.
const inProgressResends = 4

// transact runs a transaction once under the ClientRequestToken token,
// which must name this attempt alone (same items, same token; a rebuilt
// attempt takes a new one). When the SDK's retries of an answer lost in
// transit (a timeout, a reset connection) meet the first send still in
// progress, its outcome is unknown: transact sends the same request again
// with the same token, which DynamoDB answers with the first send's
// outcome for 10 minutes, rather than the caller rebuilding it, which
// would meet the first send's own writes and report as failed (a conflict,
// already done, no credits left) what happened. Still in progress after
// inProgressResends, it is SERVICE_UNAVAILABLE, which may have happened.
func (s *Store) transact(ctx context.Context, token string, items []types.TransactWriteItem) error {
	in := &dynamodb.TransactWriteItemsInput{TransactItems: items, ClientRequestToken: aws.String(token)}
	for resend := 1; ; resend++ {
		_, err := s.db.TransactWriteItems(ctx, in)
		var inProgress *types.TransactionInProgressException
		if !errors.As(err, &inProgress) {
			return err
		}
		if resend > inProgressResends {
			return gifting.Unavailable(fmt.Errorf("transaction still in progress after %d resends: %w", inProgressResends, err))
		}
		if err := sleep(ctx, backoff(resend)); err != nil {
			return err
		}
	}
}
