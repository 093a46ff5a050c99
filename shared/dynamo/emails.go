package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// A recipient's scheduled emails are sent from the recipient item itself:
// while one of its emails waits (gifting.Recipient.NextEmail), the item
// carries the due attributes (dueAttrs) of the job kind
// gifting.JobRecipientEmails at that email's time, written by
// recipientItem. So whatever writes a recipient (add-recipient, a launch
// chunk, a status move, the claim page) schedules its emails in the same
// request, and the scheduler tick finds them through the due index without
// reading recipients.
//
// An email goes out in three steps: ClaimEmail marks it claimed with a
// write conditioned on the recipient's version (of overlapping senders one
// wins), the mailer sends it, and EmailSent records the provider's message
// id and sentAt (EmailFailed the failure). A claim is a lease
// (gifting.EmailLease): a claimed email not recorded as sent keeps its
// recipient in the due index at the lease's end, so when the process dies
// between the claim and the record the tick claims and sends it again: at
// least once (gifting/email_lease.go says where a duplicate can come from).

// messageTTL is how long a sent message's item (MessageRecipient) is kept:
// SES reports bounces within minutes and complaints within days.
const messageTTL = 30 * 24 * time.Hour

// sentMessage is the global item of a sent message: whose email it was,
// for SES's bounce and complaint events, which name only the message id.
type sentMessage struct {
	OrgID       string `json:"organizationId"`
	CampaignID  string `json:"campaignId"`
	RecipientID string `json:"recipientId"`
	Kind        string `json:"kind"`
	ExpiresAt   int64  `json:"expiresAt"`
}

// ClaimEmail claims the email kind of a recipient for sending at the
// store's now (gifting.Recipient.ClaimEmail) and returns the recipient as
// claimed. It is one read and one conditional write. A claim whose lease
// ran out is taken over; when that was the email's last attempt, the
// failure is written and ClaimEmail returns gifting.ErrEmailGivenUp.
//
// Errors: NOT_FOUND (recipient), CONFLICT (the email is not waiting: sent,
// claimed by another sender whose lease runs, failed or no longer active).
func (s *Store) ClaimEmail(ctx context.Context, orgID, campaignID, recipientID, kind string) (gifting.Recipient, error) {
	givenUp := false
	r, err := s.updateRecipient(ctx, orgID, campaignID, recipientID, func(r *gifting.Recipient, _ map[string]int) ([]types.TransactWriteItem, error) {
		err := r.ClaimEmail(kind, s.Now())
		givenUp = errors.Is(err, gifting.ErrEmailGivenUp)
		if givenUp {
			return nil, nil // write the failure
		}
		return nil, err
	})
	if err == nil && givenUp {
		return r, gifting.ErrEmailGivenUp
	}
	return r, err
}

// EmailSent records that the mail provider accepted the email kind of a
// recipient as messageID (gifting.Recipient.MarkEmailSent), and writes the
// message's global item (MessageRecipient) in the same transaction; an
// invitation sent to a pending recipient moves it to invite_sent in the
// campaign's counters too, with its recipient.status_changed change record.
//
// Errors: NOT_FOUND (recipient or campaign).
func (s *Store) EmailSent(ctx context.Context, orgID, campaignID, recipientID, kind, messageID string) error {
	_, err := s.updateRecipient(ctx, orgID, campaignID, recipientID, func(r *gifting.Recipient, _ map[string]int) ([]types.TransactWriteItem, error) {
		now := s.Now()
		from := r.MarkEmailSent(kind, messageID, now)
		var items []types.TransactWriteItem
		if from != "" {
			moved, err := s.changePut(orgID, recipientStatusChanged(*r, from))
			if err != nil {
				return nil, err
			}
			items = append(items, s.CampaignStatusMove(orgID, campaignID, from, r.Status), moved)
		}
		if messageID != "" {
			it, err := withKey(sentMessage{OrgID: orgID, CampaignID: campaignID, RecipientID: recipientID, Kind: kind,
				ExpiresAt: now.Add(messageTTL).Unix()}, map[string]string{"PK": messagePK(messageID), "SK": messageSK})
			if err != nil {
				return nil, err
			}
			items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it}})
		}
		return items, nil
	})
	return err
}

// EmailFailed records a failed send of the email kind of a recipient,
// claimed at claimedAt, and releases its claim
// (gifting.Recipient.MarkEmailFailed): failure is the reason it will never
// go out, "" for one a later tick retries. A claim another sender took
// over meanwhile is left to it, with nothing written.
//
// Errors: NOT_FOUND (recipient).
func (s *Store) EmailFailed(ctx context.Context, orgID, campaignID, recipientID, kind, failure string, claimedAt time.Time) error {
	_, err := s.updateRecipient(ctx, orgID, campaignID, recipientID, func(r *gifting.Recipient, _ map[string]int) ([]types.TransactWriteItem, error) {
		if !r.MarkEmailFailed(kind, failure, claimedAt, s.Now()) {
			return nil, errNothingToWrite
		}
		return nil, nil
	})
	if errors.Is(err, errNothingToWrite) {
		return nil
	}
	return err
}

// errNothingToWrite is an updateRecipient change's answer when the
// recipient needs no write: updateRecipient returns it as it is.
var errNothingToWrite = errors.New("nothing to write")

// StopEmails records failure on the email kind of a recipient (when not
// "") and on every email of it still to be sent, which takes it out of the
// due index (gifting.Recipient.StopEmails): a bounce, a complaint, an
// unsubscribe.
//
// Errors: NOT_FOUND (recipient).
func (s *Store) StopEmails(ctx context.Context, orgID, campaignID, recipientID, kind, failure string) (gifting.Recipient, error) {
	return s.updateRecipient(ctx, orgID, campaignID, recipientID, func(r *gifting.Recipient, _ map[string]int) ([]types.TransactWriteItem, error) {
		r.StopEmails(kind, failure, s.Now())
		return nil, nil
	})
}

// HoldEmails makes a recipient's waiting emails due again at until
// without changing the recipient: their campaign does not send them now
// (a draft, a paused campaign). A recipient no longer due is left alone.
func (s *Store) HoldEmails(ctx context.Context, orgID, campaignID, recipientID string, until time.Time) error {
	pk, sk := orgPK(orgID), recipientSK(campaignID, recipientID)
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(pk, sk),
		UpdateExpression:          aws.String("SET dueAt = :next"),
		ConditionExpression:       aws.String("attribute_exists(dueShard)"),
		ExpressionAttributeValues: item{":next": str(dueSK(until, pk, sk))},
	})
	var cond *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &cond) {
		return fmt.Errorf("hold emails: %w", err)
	}
	return nil
}

// MessageRecipient returns whose email the sent message messageID was:
// organization, campaign, recipient and email kind, with one read; found
// is false for a message this service did not send (or sent more than
// messageTTL ago).
func (s *Store) MessageRecipient(ctx context.Context, messageID string) (orgID, campaignID, recipientID, kind string, found bool, err error) {
	var m sentMessage
	found, err = s.get(ctx, messagePK(messageID), messageSK, &m)
	return m.OrgID, m.CampaignID, m.RecipientID, m.Kind, found, err
}
