package dynamo

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// The campaign's counters, updated in the same transactions as the
// recipients they count (add-recipient, the launch's slices, claims,
// expiries, recipient moves).

// CampaignCounterUpdate is the transaction item that counts delta more
// recipients in status (negative to count fewer) and credits more spent on
// campaignID. It is conditioned on the campaign existing, not being deleted
// and accepting recipients (campaign.Campaign.AcceptsRecipients), so a
// recipient is never written for a campaign that cannot take it: the
// transaction is cancelled with ConditionalCheckFailed at this item. When
// it counts invited recipients the campaign must also be sending
// (campaign.InvitingStates): a campaign paused since it was read cancels
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
	states := campaign.AcceptingStates
	if inviting || deltas[gifting.RecipientInviteSent] > 0 {
		states = campaign.InvitingStates
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
