package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// UninviteRecipient undoes an invitation whose send failed: the recipient
// goes back to pending with its invitation unsent (still scheduled), and
// the campaign counts it as pending again, in one transaction. It changes
// nothing if the recipient has moved on since it was written (its version
// is no longer 1).
func (s *Store) UninviteRecipient(ctx context.Context, orgID string, inv gifting.Invitation) error {
	_, err := s.uninvite(ctx, orgID, inv, nil)
	return err
}

// UninviteAddedRecipient is UninviteRecipient for an add-recipient: the
// stored idempotent response (idem, nil when none) is rendered again with
// emailSent false in the same transaction. It returns the response to
// give, emailSent false, or the original one when nothing was undone.
func (s *Store) UninviteAddedRecipient(ctx context.Context, orgID string, res gifting.AddRecipientResult, idem *gifting.Idempotent[gifting.AddedRecipient]) (gifting.AddedRecipient, error) {
	out := res.Response
	out.EmailSent = false
	var extra []types.TransactWriteItem
	if idem != nil {
		k := idem.Key
		put, err := idempotentPut(s, orgID, idem, out)
		if err != nil {
			return res.Response, err
		}
		// Replace the record written with the recipient, and only that
		// one (same request hash).
		put.Put.ConditionExpression = aws.String("#hash = :hash")
		put.Put.ExpressionAttributeNames = map[string]string{"#hash": "hash"}
		put.Put.ExpressionAttributeValues = item{":hash": str(k.Hash)}
		put.Put.ReturnValuesOnConditionCheckFailure = ""
		extra = append(extra, put)
	}
	undone, err := s.uninvite(ctx, orgID, res.Invitation(), extra)
	if err != nil || !undone {
		return res.Response, err
	}
	return out, nil
}

// uninvite writes inv's recipient back as pending with extra in the same
// transaction, and reports whether it did (false: the recipient moved on).
func (s *Store) uninvite(ctx context.Context, orgID string, inv gifting.Invitation, extra []types.TransactWriteItem) (bool, error) {
	r := inv.Recipient
	r.Status = gifting.RecipientPending
	r.Emails.AddressConfirmation.ClaimedAt = nil
	it, err := s.recipientItem(orgID, storedRecipient{Recipient: r, Ver: 2, Delays: inv.Delays, EmailSet: inv.EmailSet})
	if err != nil {
		return false, err
	}
	var tx txn
	tx.add(condRecipient, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it, ConditionExpression: aws.String("ver = :ver"),
		ExpressionAttributeValues: item{":ver": num(1)}}})
	tx.add("", s.CampaignStatusMove(orgID, r.CampaignID, gifting.RecipientInviteSent, gifting.RecipientPending))
	tx.add("", extra...)
	if err := s.transactRetrying(ctx, tx.items); err != nil {
		if tx.failed(cancellationReasons(err), condRecipient) {
			return false, nil
		}
		return false, fmt.Errorf("uninvite recipient: %w", err)
	}
	return true, nil
}
