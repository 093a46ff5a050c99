package dynamo

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// UpdateContact applies a patch to a live contact of org. It returns
// NOT_FOUND for a missing or deleted contact, VALIDATION_FAILED for bad
// values and CONFLICT when the new mailId belongs to another contact.
// Changing mailId moves the email marker in the same transaction as the
// contact, so an email is never held by two contacts, nor by none.
func (s *Store) UpdateContact(ctx context.Context, orgID, contactID string, patch gifting.ContactPatch) (gifting.Contact, error) {
	for attempt := 1; ; attempt++ {
		cur, err := s.contact(ctx, orgID, contactID)
		if err != nil {
			return gifting.Contact{}, err
		}
		c := cur.Contact
		if err := patch.Apply(&c, s.Now()); err != nil {
			return gifting.Contact{}, err
		}
		put, err := s.contactPut(orgID, c, cur.Ver)
		if err != nil {
			return gifting.Contact{}, err
		}
		var tx txn
		tx.add("", put)
		if c.MailID != cur.MailID {
			marker, err := withKey(emailMarker{ContactID: contactID}, map[string]string{"PK": orgPK(orgID), "SK": emailSK(c.MailID)})
			if err != nil {
				return gifting.Contact{}, err
			}
			tx.add("", s.markerDelete(orgID, cur.MailID, contactID))
			tx.add(condEmail, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: marker,
				ConditionExpression: aws.String("attribute_not_exists(PK)")}})
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx.items})
		if err == nil {
			return c, nil
		}
		if tx.failed(cancellationReasons(err), condEmail) {
			return gifting.Contact{}, &gifting.Error{Code: gifting.CodeConflict,
				Message: "another contact already has this email address",
				Details: map[string]string{"mailId": "belongs to another contact"}}
		}
		if err := s.retryWait(ctx, err, attempt); err != nil {
			return gifting.Contact{}, fmt.Errorf("update contact: %w", err)
		}
	}
}

// markerDelete is the transaction item that releases an email held by a
// contact.
func (s *Store) markerDelete(orgID, email, contactID string) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: &s.table, Key: key(orgPK(orgID), emailSK(email)),
		ConditionExpression:       aws.String("contactId = :id"),
		ExpressionAttributeValues: item{":id": str(contactID)},
	}}
}

// DeleteContact soft-deletes a live contact of org, in one transaction: the
// record moves out of the contacts range and the Slim index (kept, with
// isDeleted, under DELCONTACT#), its email is released so it can be
// imported again, it leaves every list (memberships and list counts), and
// the contacts counter drops. It returns NOT_FOUND for a missing or already
// deleted contact.
func (s *Store) DeleteContact(ctx context.Context, orgID, contactID string) error {
	for attempt := 1; ; attempt++ {
		cur, err := s.contact(ctx, orgID, contactID)
		if err != nil {
			return err
		}
		gone := cur.Contact
		gone.IsDeleted, gone.UpdatedAt, gone.ListIDs = true, s.Now(), []string{}
		rec, err := marshal(gone)
		if err != nil {
			return err
		}
		compact(rec)
		rec["PK"], rec["SK"] = str(orgPK(orgID)), str(deletedContactSK(contactID))
		items := []types.TransactWriteItem{
			{Delete: &types.Delete{
				TableName: &s.table, Key: key(orgPK(orgID), contactSK(contactID)),
				ConditionExpression:       aws.String("ver = :ver"),
				ExpressionAttributeValues: item{":ver": num(cur.Ver)},
			}},
			{Put: &types.Put{TableName: &s.table, Item: rec}},
			s.markerDelete(orgID, cur.MailID, contactID),
			s.counterAdd(orgID, counterContacts, -1),
		}
		for _, listID := range slices.Compact(slices.Sorted(slices.Values(cur.ListIDs))) {
			items = append(items, s.memberDelete(orgID, listID, contactID), s.listCountAdd(orgID, listID, -1))
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		if err := s.retryWait(ctx, err, attempt); err != nil {
			return fmt.Errorf("delete contact: %w", err)
		}
	}
}
