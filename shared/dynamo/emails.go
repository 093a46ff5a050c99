package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A recipient's scheduled emails are sent from the recipient item itself:
// while one of its emails waits (recipient.Recipient.NextEmail), the item
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
// (recipient.EmailLease): a claimed email not recorded as sent keeps its
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
