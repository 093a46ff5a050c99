package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// errEmailTaken is the CONFLICT of a new mailId another contact has.
var errEmailTaken = &gifting.Error{Code: gifting.CodeConflict,
	Message: "another contact already has this email address",
	Details: map[string]string{"mailId": "belongs to another contact"}}

// UpdateContact applies a patch to a live contact of org. It returns
// NOT_FOUND for a missing or deleted contact, VALIDATION_FAILED for bad
// values and CONFLICT when the new mailId belongs to another contact.
// Changing mailId releases the old email's slot and takes the new one's in
// the same transaction as the contact, so an email is never held by two
// contacts, nor kept by one that no longer has it.
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
		var tx txn
		if c.MailID == cur.MailID {
			put, err := s.contactPut(orgID, cur, c)
			if err != nil {
				return gifting.Contact{}, err
			}
			tx.add("", put)
		} else if err := s.moveEmail(ctx, orgID, cur, c, &tx); err != nil {
			return gifting.Contact{}, err
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx.items})
		if err == nil {
			return c, nil
		}
		if tx.failed(cancellationReasons(err), condEmail) {
			return gifting.Contact{}, errEmailTaken
		}
		if err := s.retryWait(ctx, err, attempt); err != nil {
			return gifting.Contact{}, fmt.Errorf("update contact: %w", err)
		}
	}
}

// moveEmail adds to tx the writes of contact cur becoming c, whose mailId
// differs: the contact itself, the release of the old email (its slot, or
// its legacy marker) and the claim of the new one's slot. It reads both
// emails' slots first, and returns CONFLICT when another contact has the
// new email.
func (s *Store) moveEmail(ctx context.Context, orgID string, cur storedContact, c gifting.Contact, tx *txn) error {
	got, err := s.batchGet(ctx, append(slotKeys(orgID, cur.MailID), slotKeys(orgID, c.MailID)...))
	if err != nil {
		return err
	}
	bySK := bySortKey(got)
	to, err := slotOf(orgID, c.MailID, bySK)
	if err != nil {
		return err
	}
	if to.holder != "" && to.holder != cur.ContactID {
		return errEmailTaken
	}
	own := cur
	release, err := s.slotRelease(orgID, cur, bySK, &own)
	if err != nil {
		return err
	}
	// The new email's slot: the contact's own item, or another one.
	var claim types.TransactWriteItem
	toSK := contactSK(slotID(orgID, c.MailID))
	switch it := bySK[toSK]; {
	case toSK == contactSK(cur.ContactID):
		own.Holder = cur.ContactID
	case it == nil:
		claim = types.TransactWriteItem{Put: &types.Put{TableName: &s.table,
			Item:                item{"PK": str(orgPK(orgID)), "SK": str(toSK), "holder": str(cur.ContactID)},
			ConditionExpression: aws.String("attribute_not_exists(PK)")}}
	default:
		claim = s.slotClaim(orgID, c.MailID, cur.ContactID)
	}
	put, err := s.contactPut(orgID, own, c)
	if err != nil {
		return err
	}
	tx.add("", put)
	tx.add("", release...)
	if claim.Put != nil || claim.Update != nil {
		tx.add(condEmail, claim)
	}
	// A legacy marker of the new email (a contact not yet migrated has it)
	// must stay absent.
	tx.add(condEmail, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: &s.table,
		Key: key(orgPK(orgID), emailSK(c.MailID)), ConditionExpression: aws.String("attribute_not_exists(PK)")}})
	return nil
}

// slotRelease returns the writes that free the email contact cur has now,
// from the items read at its slotKeys (in bySK): its legacy marker goes;
// a slot that is another item loses its holder. When the slot is cur's own item, own (the form the caller
// writes cur's item with) loses its holder instead.
func (s *Store) slotRelease(orgID string, cur storedContact, bySK map[string]item, own *storedContact) ([]types.TransactWriteItem, error) {
	var out []types.TransactWriteItem
	if bySK[emailSK(cur.MailID)] != nil {
		out = append(out, s.markerDelete(orgID, cur.MailID, cur.ContactID))
	}
	sk := contactSK(slotID(orgID, cur.MailID))
	if sk == contactSK(cur.ContactID) {
		if own.Holder == cur.ContactID {
			own.Holder = ""
		}
		return out, nil
	}
	it := bySK[sk]
	if it == nil {
		return out, nil
	}
	slot, err := decodeContact(it)
	if err != nil {
		return nil, err
	}
	if slot.Holder != cur.ContactID {
		return out, nil
	}
	// The slot item stays, even a bare one: were it deleted, the email
	// imported again would create a contact at the slot's id, which may
	// be the id of a deleted contact. Its version moves, so a write of the
	// contact it is (if any) read before this one cannot restore the
	// holder.
	return append(out, types.TransactWriteItem{Update: &types.Update{TableName: &s.table, Key: key(orgPK(orgID), sk),
		UpdateExpression:          aws.String("REMOVE holder ADD ver :one"),
		ConditionExpression:       aws.String("holder = :id"),
		ExpressionAttributeValues: item{":id": str(cur.ContactID), ":one": num(1)}}}), nil
}

// markerDelete is the transaction item that releases a legacy email marker
// held by a contact.
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
// the contacts counter drops. When the contact's item is the slot of an
// email another contact has, an alias item naming that contact stays in
// its place. It returns NOT_FOUND for a missing or already deleted
// contact.
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
		bySK := map[string]item{}
		if slotID(orgID, cur.MailID) != contactID {
			got, err := s.batchGet(ctx, slotKeys(orgID, cur.MailID))
			if err != nil {
				return err
			}
			bySK = bySortKey(got)
		}
		own := cur
		release, err := s.slotRelease(orgID, cur, bySK, &own)
		if err != nil {
			return err
		}
		ifVer := aws.String("ver = :ver")
		vals := item{":ver": num(cur.Ver)}
		remove := types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: key(orgPK(orgID), contactSK(contactID)),
			ConditionExpression: ifVer, ExpressionAttributeValues: vals}}
		if isSlotID(contactID) || own.Holder != "" {
			// The item is the slot of the email the contact was created
			// for: a bare slot stays (naming the contact that has that
			// email now, if any), so the email, imported again, makes a
			// contact with a new id and the deleted id never comes back.
			slot := item{"PK": str(orgPK(orgID)), "SK": str(contactSK(contactID))}
			if own.Holder != "" {
				slot["holder"] = str(own.Holder)
			}
			remove = types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: slot,
				ConditionExpression: ifVer, ExpressionAttributeValues: vals}}
		}
		items := append([]types.TransactWriteItem{remove, {Put: &types.Put{TableName: &s.table, Item: rec}}}, release...)
		items = append(items, s.counterAdd(orgID, counterContacts, -1))
		lists := slices.Compact(slices.Sorted(slices.Values(cur.ListIDs)))
		// The first attempt takes every list to exist. After a failure
		// (perhaps a list deleted whose job has not dropped this
		// membership yet) it reads which do.
		var live map[string]bool
		if attempt > 1 {
			if live, err = s.existingLists(ctx, orgID, lists); err != nil {
				return err
			}
		}
		for _, listID := range lists {
			switch {
			case live != nil && !live[listID]:
				// A list deleted whose job has not dropped this membership
				// yet: no count to move, and the member item may be gone.
				if listID != cur.onItem() {
					items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table,
						Key: key(orgPK(orgID), memberSK(listID, contactID))}})
				}
			case listID != cur.onItem():
				items = append(items, s.memberDelete(orgID, listID, contactID), s.listCountAdd(orgID, listID, -1))
			default:
				items = append(items, s.listCountAdd(orgID, listID, -1))
			}
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

// existingLists reports which of org's lists listIDs exist (a deleted
// list is gone at once, while its deletion job may not yet have dropped
// its memberships), in one BatchGetItem.
func (s *Store) existingLists(ctx context.Context, orgID string, listIDs []string) (map[string]bool, error) {
	keys := make([]item, len(listIDs))
	for i, id := range listIDs {
		keys[i] = key(orgPK(orgID), listSK(id))
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	live := make(map[string]bool, len(got))
	for _, it := range got {
		live[strings.TrimPrefix(attrS(it, "SK"), listPrefix)] = true
	}
	return live, nil
}
