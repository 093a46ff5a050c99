package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// ListMembers returns a page of the live contacts of org's list listID, in
// listMemberPage's order (the contacts whose first list it is, newest
// first, then the others), and how many there are. A non-empty search
// keeps the members whose names, email or company contain every word of
// it. It returns NOT_FOUND for an unknown list.
//
// The list's contactCount, kept by imports after each chunk's writes,
// trails its members while an import runs (and for good when one died
// between its writes and its count): the member keys are read one past
// the page, which says whether a member follows it, and the total is
// theirs where they tell it (gifting.PageTotal); the count never decides
// which keys are read.
//
// Costs: the list item, the member keys up to one past the page's end
// (Slim entries, then member items that hold only their key) and one
// BatchGet of the page's contacts: O(page) plus the skip, never the
// collection's items. A search walks the org's contacts' Slim partition
// (as GET /contacts?search= does) and the list's member keys, then reads
// the page's contacts.
func (s *Store) ListMembers(ctx context.Context, orgID, listID, search string, page gifting.PageRequest) ([]gifting.Contact, int, error) {
	l, err := s.ContactList(ctx, orgID, listID)
	if err != nil {
		return nil, 0, err
	}
	var ids []string
	total := int(l.ContactCount)
	if terms := strings.Fields(strings.ToLower(search)); len(terms) > 0 {
		matched, err := s.searchContactIDs(ctx, orgID, terms)
		if err != nil {
			return nil, 0, err
		}
		members, err := s.memberIDs(ctx, orgID, listID, -1)
		if err != nil {
			return nil, 0, err
		}
		in := make(map[string]bool, len(members))
		for _, id := range members {
			in[id] = true
		}
		matched = slices.DeleteFunc(matched, func(id string) bool { return !in[id] })
		total = len(matched)
		lo, hi := page.Window(total)
		ids = matched[lo:hi]
	} else {
		keys, err := s.memberIDs(ctx, orgID, listID, page.End()+1)
		if err != nil {
			return nil, 0, err
		}
		total = gifting.PageTotal(page, total, len(keys))
		lo, hi := page.Window(len(keys))
		ids = keys[lo:hi]
	}
	contacts, err := s.ContactsByID(ctx, orgID, ids)
	if err != nil {
		return nil, 0, err
	}
	return contacts, total, nil
}

// UpdateContactList applies patch to org's list listID and returns it as
// stored. Only name, description and updatedAt are written, so members
// added meanwhile keep their count. It returns NOT_FOUND for an unknown
// list and VALIDATION_FAILED for a bad patch.
func (s *Store) UpdateContactList(ctx context.Context, orgID, listID string, patch gifting.ContactListPatch) (gifting.ContactList, error) {
	l, err := s.ContactList(ctx, orgID, listID)
	if err != nil {
		return l, err
	}
	if err := patch.Apply(&l, s.Now()); err != nil {
		return gifting.ContactList{}, err
	}
	at, err := marshalValue(l.UpdatedAt)
	if err != nil {
		return l, err
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), listSK(listID)),
		UpdateExpression:          aws.String("SET #n = :name, description = :desc, updatedAt = :at"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeNames:  map[string]string{"#n": "name"},
		ExpressionAttributeValues: item{":name": str(l.Name), ":desc": str(l.Description), ":at": at},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if isConditionFailed(err) {
		return gifting.ContactList{}, gifting.NotFound("contact list", listID)
	}
	if err != nil {
		return gifting.ContactList{}, fmt.Errorf("update contact list: %w", err)
	}
	var stored gifting.ContactList
	return stored, unmarshal(out.Attributes, &stored)
}

// DeleteContactList deletes org's list listID for good: the list item goes
// and, in the same transaction, a tombstone (DELLIST#) is written that is
// due in the due index, so the memberships are removed (DropListMembers)
// whether the job's message arrives or the scheduler tick finds it. drafts
// are the draft campaigns referring to the list (see deleteReferenced).
// It returns NOT_FOUND for an unknown list and CONFLICT when a draft
// changed meanwhile.
func (s *Store) DeleteContactList(ctx context.Context, orgID, listID string, drafts []campaign.Campaign) error {
	l, err := s.ContactList(ctx, orgID, listID)
	if err != nil {
		return err
	}
	attrs := dueAttrs(gifting.JobContactListDelete, listID, orgPK(orgID), deletedListSK(listID), s.Now().Add(DueLease))
	attrs["PK"], attrs["SK"] = orgPK(orgID), deletedListSK(listID)
	tomb, err := withKey(l, attrs)
	if err != nil {
		return err
	}
	put := types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: tomb}}
	return s.deleteReferenced(ctx, orgID, gifting.Ref{Kind: gifting.RefContactList, ID: listID}, listSK(listID),
		[]types.TransactWriteItem{put}, drafts)
}

// listDeleteSlice is how many memberships one slice of a list's deletion
// removes: one small transaction each, so a slice stays well inside a
// Lambda invocation and 100 write units.
const listDeleteSlice = 100

// DropListMembers removes up to listDeleteSlice memberships of the deleted
// list listID: each member item goes, in one transaction with its contact's
// listIds (the contact stays). It returns done when no membership is left,
// after deleting the list's tombstone; otherwise it records progress on the
// tombstone (its due time moves a lease ahead). Running it again after a
// failure is safe: removed memberships are not read again.
func (s *Store) DropListMembers(ctx context.Context, orgID, listID string) (done bool, err error) {
	// Each membership dropped leaves the list's members, so every slice
	// reads from the start.
	ids, _, err := s.listMemberPage(ctx, orgID, listID, "", listDeleteSlice)
	if err != nil {
		return false, err
	}
	if len(ids) == 0 {
		_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(orgPK(orgID), deletedListSK(listID))})
		if err != nil {
			return false, fmt.Errorf("delete list tombstone: %w", err)
		}
		return true, nil
	}
	stored, err := s.contactsByID(ctx, orgID, ids)
	if err != nil {
		return false, err
	}
	for _, id := range ids {
		if err := s.dropMember(ctx, orgID, listID, id, stored[id]); err != nil {
			return false, err
		}
	}
	return false, s.dueProgressed(ctx, orgPK(orgID), deletedListSK(listID), "")
}

// dropMember removes the membership of contactID in the deleted list:
// cur is the contact as read (zero when it is gone); a concurrent change
// of the contact makes it read again.
func (s *Store) dropMember(ctx context.Context, orgID, listID, contactID string, cur storedContact) error {
	for attempt := 1; ; attempt++ {
		del := types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: key(orgPK(orgID), memberSK(listID, contactID))}}
		items := []types.TransactWriteItem{del}
		if cur.ContactID != "" && cur.InList(listID) {
			c := cur.Contact
			c.ListIDs = slices.DeleteFunc(slices.Clone(c.ListIDs), func(id string) bool { return id == listID })
			c.UpdatedAt = s.Now()
			var err error
			if items, err = s.leaveItems(orgID, cur, c, listID); err != nil {
				return err
			}
		}
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		if err := s.retryWait(ctx, err, attempt); err != nil {
			return fmt.Errorf("drop list member: %w", err)
		}
		cur, err = s.contact(ctx, orgID, contactID)
		if gifting.ErrorCode(err) == gifting.CodeNotFound {
			cur, err = storedContact{}, nil
		}
		if err != nil {
			return err
		}
	}
}
