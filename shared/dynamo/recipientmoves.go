package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// MoveRecipient moves a recipient of a campaign to status to, following
// recipient.Recipient.Advance (forward only), and moves it between the
// campaign's status counters in the same transaction. It costs one read and
// one transaction.
//
// Errors: NOT_FOUND (recipient or campaign), CONFLICT (a backward or
// same-state move; a move to address_confirmed or later of a recipient
// without a confirmed address, see recipient.Recipient.MoveByFulfilment).
func (s *Store) MoveRecipient(ctx context.Context, orgID, campaignID, recipientID string, to gifting.RecipientStatus) (recipient.Recipient, error) {
	return s.updateRecipient(ctx, orgID, campaignID, recipientID, func(r *recipient.Recipient, delays map[string]int) ([]types.TransactWriteItem, error) {
		from := r.Status
		if err := r.MoveByFulfilment(to, s.Now(), delays); err != nil {
			return nil, err
		}
		return s.withChange(orgID, recipientStatusChanged(*r, from), s.CampaignStatusMove(orgID, campaignID, from, to))
	})
}

// AddRecipientFeedback records a recipient's rating (when not empty) and
// message (when not nil). The recipient's first feedback counts in the
// campaign's feedbackCount, in the same transaction.
//
// Errors: NOT_FOUND, CONFLICT (recipient not invited yet; too many
// messages).
func (s *Store) AddRecipientFeedback(ctx context.Context, orgID, campaignID, recipientID, rating string, msg *recipient.FeedbackMessage) (recipient.Recipient, error) {
	return s.updateRecipient(ctx, orgID, campaignID, recipientID, func(r *recipient.Recipient, _ map[string]int) ([]types.TransactWriteItem, error) {
		first := !r.Feedback.Has()
		if err := r.AddFeedback(rating, msg, s.Now()); err != nil {
			return nil, err
		}
		feedback := gifting.NewChange(gifting.ChangeRecipientFeedback, *r)
		if first {
			return s.withChange(orgID, feedback, s.CampaignFeedbackAdd(orgID, campaignID, 1))
		}
		// Still check the campaign exists: a deleted campaign's
		// recipients are gone with it.
		return s.withChange(orgID, feedback, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: &s.table, Key: key(orgPK(orgID), campaignSK(campaignID)),
			ConditionExpression: aws.String("attribute_exists(PK)"),
		}})
	})
}

// updateRecipient reads a recipient, lets change modify it and name the
// campaign item of the transaction, and writes both, conditioned on the
// version read; a concurrent update makes it read and try again.
func (s *Store) updateRecipient(ctx context.Context, orgID, campaignID, recipientID string,
	change func(r *recipient.Recipient, delays map[string]int) ([]types.TransactWriteItem, error)) (recipient.Recipient, error) {
	for attempt := 1; ; attempt++ {
		cur, err := s.loadRecipient(ctx, orgID, campaignID, recipientID)
		if err != nil {
			return recipient.Recipient{}, err
		}
		r := cur.Recipient
		more, err := change(&r, cur.Delays)
		if err != nil {
			return recipient.Recipient{}, err
		}
		it, err := s.recipientItem(orgID, cur.Next(r))
		if err != nil {
			return recipient.Recipient{}, err
		}
		put := &types.Put{
			TableName: &s.table, Item: it,
			ConditionExpression:       aws.String("ver = :ver"),
			ExpressionAttributeValues: item{":ver": num(cur.Version)},
		}
		if len(more) == 0 {
			// The recipient alone: a conditional put, at half a
			// transaction's cost.
			_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: put.TableName, Item: put.Item,
				ConditionExpression: put.ConditionExpression, ExpressionAttributeValues: put.ExpressionAttributeValues})
			var cond *types.ConditionalCheckFailedException
			switch {
			case err == nil:
				return r, nil
			case errors.As(err, &cond) && attempt < maxAttempts:
				continue // changed since read: read again
			}
			return recipient.Recipient{}, fmt.Errorf("update recipient: %w", err)
		}
		var tx txn
		tx.add(condRecipient, types.TransactWriteItem{Put: put})
		// The change's items lead with the campaign's counters.
		tx.add(condCampaign, more...)
		err = s.transactRetrying(ctx, tx.items)
		if err == nil {
			return r, nil
		}
		reasons := cancellationReasons(err)
		switch {
		case tx.failed(reasons, condRecipient) && attempt < maxAttempts:
			continue // changed since read: read again
		case tx.failed(reasons, condCampaign):
			return recipient.Recipient{}, gifting.NotFound("campaign", campaignID)
		}
		return recipient.Recipient{}, fmt.Errorf("update recipient: %w", err)
	}
}
