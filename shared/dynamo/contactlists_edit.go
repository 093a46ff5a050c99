package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/refcheck"
)

// The commits of a list's edit and delete, and of the job that removes a
// deleted list's memberships.

// CommitListEdit writes l's name, description and updatedAt, so members
// added meanwhile keep their count, and returns the list as stored;
// contact.ErrListNotFound when it is gone.
func (s *Store) CommitListEdit(ctx context.Context, l contact.List) (contact.List, error) {
	at, err := marshalValue(l.UpdatedAt)
	if err != nil {
		return contact.List{}, err
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(l.OrganizationID), listSK(l.ListID)),
		UpdateExpression:          aws.String("SET #n = :name, description = :desc, updatedAt = :at"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeNames:  map[string]string{"#n": "name"},
		ExpressionAttributeValues: item{":name": str(l.Name), ":desc": str(l.Description), ":at": at},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if isConditionFailed(err) {
		return contact.List{}, contact.ErrListNotFound
	}
	if err != nil {
		return contact.List{}, fmt.Errorf("update contact list: %w", err)
	}
	var stored listItem
	return stored.list(), unmarshal(out.Attributes, &stored)
}

// CommitListDelete deletes the list l for good: the list item goes and, in
// the same transaction, a tombstone (DELLIST#) is written that is due in
// the due index, so the memberships are removed (contact.JobListDelete)
// whether the job's message arrives or the scheduler tick finds it. The
// same transaction checks that each of drafts is still the draft read
// (commitRefDelete). contact.ErrListNotFound when the list is gone, a
// *contact.DraftChanged when a draft changed.
func (s *Store) CommitListDelete(ctx context.Context, l contact.List, drafts []refcheck.Referrer) error {
	attrs := dueAttrs(contact.JobListDelete, l.ListID, orgPK(l.OrganizationID), deletedListSK(l.ListID), s.Now().Add(DueLease))
	attrs["PK"], attrs["SK"] = orgPK(l.OrganizationID), deletedListSK(l.ListID)
	tomb, err := withKey(listItemOf(l), attrs)
	if err != nil {
		return err
	}
	put := types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: tomb}}
	err = s.commitRefDelete(ctx, l.OrganizationID, listSK(l.ListID), []types.TransactWriteItem{put}, drafts)
	var moved *draftMoved
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errRefGone):
		return contact.ErrListNotFound
	case errors.As(err, &moved):
		return &contact.DraftChanged{CampaignID: drafts[moved.i].CampaignID, Name: drafts[moved.i].Name}
	}
	return fmt.Errorf("delete contact list: %w", err)
}

// CommitListPurged deletes the tombstone of the deleted list listID: no
// membership is left.
func (s *Store) CommitListPurged(ctx context.Context, orgID, listID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(orgPK(orgID), deletedListSK(listID))})
	if err != nil {
		return fmt.Errorf("delete list tombstone: %w", err)
	}
	return nil
}

// CommitListProgress records that the job removing the deleted list
// listID's memberships advanced: its tombstone is due a lease later.
func (s *Store) CommitListProgress(ctx context.Context, orgID, listID string) error {
	return s.dueProgressed(ctx, orgPK(orgID), deletedListSK(listID), "")
}
