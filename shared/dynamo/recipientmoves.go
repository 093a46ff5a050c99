package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/recipient"
)

// The commit of a recipient's update: a status move, feedback, the record
// of its emails (shared/recipient decides: DecideMove, DecideFeedback,
// DecideClaimEmail, …; its App reads again when the recipient changed).

// CommitUpdate writes u (recipient.UpdateStore): the recipient conditioned
// on the version read, alone with one conditional put (half a
// transaction's cost), or in one transaction with its campaign's item
// (the status counters moved, the feedback counted, or a check that it
// exists), its change record and the record of a sent message (with the
// month's usage counting it).
func (s *Store) CommitUpdate(ctx context.Context, u recipient.Update) error {
	it, err := s.recipientItem(u.OrgID, u.Recipient)
	if err != nil {
		return err
	}
	put := &types.Put{
		TableName: &s.table, Item: it,
		ConditionExpression:       aws.String("ver = :ver"),
		ExpressionAttributeValues: item{":ver": num(u.Before)},
	}
	if u.Alone() {
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: put.TableName, Item: put.Item,
			ConditionExpression: put.ConditionExpression, ExpressionAttributeValues: put.ExpressionAttributeValues})
		return updateFailed(err, nil, nil)
	}
	more, err := s.updateItems(u)
	if err != nil {
		return err
	}
	var tx txn
	tx.add(condRecipient, types.TransactWriteItem{Put: put})
	// The update's items lead with the campaign's.
	tx.add(condCampaign, more...)
	err = s.transactRetrying(ctx, tx.items)
	return updateFailed(err, &tx, cancellationReasons(err))
}

// updateItems are the items an update writes beside the recipient: its
// campaign's item, its change record, the record of its sent message.
func (s *Store) updateItems(u recipient.Update) ([]types.TransactWriteItem, error) {
	r := u.Recipient
	var items []types.TransactWriteItem
	var counts map[string]int64 // the month's usage and events
	switch u.Campaign {
	case recipient.CampaignStatusMove:
		items = append(items, s.CampaignStatusMove(u.OrgID, r.CampaignID, u.From, r.Status))
		counts = addCounts(counts, campaign.MoveEvents(u.From, r.Status, 1))
	case recipient.CampaignFeedbackCount:
		items = append(items, s.CampaignFeedbackAdd(u.OrgID, r.CampaignID, 1))
		counts = addCounts(counts, map[string]int64{campaign.EventFeedback: 1})
	case recipient.CampaignExists:
		items = append(items, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: &s.table, Key: key(orgPK(u.OrgID), campaignSK(r.CampaignID)),
			ConditionExpression: aws.String("attribute_exists(PK)"),
		}})
	}
	if u.Message != nil {
		change, err := s.changePut(u.OrgID, *u.Message)
		if err != nil {
			return nil, err
		}
		items = append(items, change)
	}
	if u.Sent != nil {
		it, err := withKey(sentMessage{OrgID: u.OrgID, CampaignID: r.CampaignID, RecipientID: r.RecipientID, Kind: u.Sent.Kind,
			ExpiresAt: s.Now().Add(messageTTL).Unix()}, map[string]string{"PK": messagePK(u.Sent.MessageID), "SK": messageSK})
		if err != nil {
			return nil, err
		}
		// The month's usage counts the email with its record as sent.
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it}})
		counts = addCounts(counts, map[string]int64{usageEmails: 1})
	}
	return append(items, s.eventsAdd(u.OrgID, counts)...), nil
}

// updateFailed maps the outcome err of an update's write (tx nil: the
// conditional put alone) to the recipient slice's: the recipient changed
// since read, the campaign's item missing.
func updateFailed(err error, tx *txn, reasons []types.CancellationReason) error {
	var cond *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		return nil
	case tx == nil && errors.As(err, &cond):
		return recipient.ErrRecipientChanged
	case tx != nil && tx.failed(reasons, condRecipient):
		return recipient.ErrRecipientChanged
	case tx != nil && tx.failed(reasons, condCampaign):
		return recipient.ErrCampaignMissing
	}
	return fmt.Errorf("update recipient: %w", err)
}
