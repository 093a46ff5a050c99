package dynamo

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
)

// The commits of a contact's edit and of its delete.

// CommitContact writes after over before, at before's version, in one
// transaction. When the mailId changed, the same transaction releases the
// old email's slot and takes the new one's (moveEmail), so an email is
// never held by two contacts, nor kept by one that no longer has it:
// contact.ErrEmailTaken when another contact has the new email.
func (s *Store) CommitContact(ctx context.Context, orgID string, before, after contact.Contact) error {
	var tx txn
	if after.MailID == before.MailID {
		writes, err := s.contactWrites(orgID, after)
		if err != nil {
			return err
		}
		tx.add("", writes...)
	} else if err := s.moveEmail(ctx, orgID, before, after, &tx); err != nil {
		return err
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx.items})
	if tx.failed(cancellationReasons(err), condEmail) {
		return contact.ErrEmailTaken
	}
	return contactChanged(err)
}

// moveEmail adds to tx the writes of contact cur becoming c, whose mailId
// differs: the contact itself, the release of the old email (its slot, or
// its legacy marker) and the claim of the new one's slot. It reads both
// emails' slots first: contact.ErrEmailTaken when another contact has the
// new email.
func (s *Store) moveEmail(ctx context.Context, orgID string, cur, c contact.Contact, tx *txn) error {
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
		return contact.ErrEmailTaken
	}
	release, err := s.slotRelease(orgID, cur, bySK, &c.Stored.Holder)
	if err != nil {
		return err
	}
	// The new email's slot: the contact's own item, or another one.
	var claim types.TransactWriteItem
	toSK := contactSK(slotID(orgID, c.MailID))
	switch it := bySK[toSK]; {
	case toSK == contactSK(cur.ContactID):
		c.Stored.Holder = cur.ContactID
	case it == nil:
		claim = types.TransactWriteItem{Put: &types.Put{TableName: &s.table,
			Item:                item{"PK": str(orgPK(orgID)), "SK": str(toSK), "holder": str(cur.ContactID)},
			ConditionExpression: aws.String("attribute_not_exists(PK)")}}
	default:
		claim = s.slotClaim(orgID, c.MailID, cur.ContactID)
	}
	writes, err := s.contactWrites(orgID, c)
	if err != nil {
		return err
	}
	tx.add("", writes...)
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
// from the items read at its slotKeys (in bySK): its legacy marker goes; a
// slot that is another item loses its holder. When the slot is cur's own
// item, the holder its item is written with (*holder) is cleared instead.
func (s *Store) slotRelease(orgID string, cur contact.Contact, bySK map[string]item, holder *string) ([]types.TransactWriteItem, error) {
	var out []types.TransactWriteItem
	if bySK[emailSK(cur.MailID)] != nil {
		out = append(out, s.markerDelete(orgID, cur.MailID, cur.ContactID))
	}
	sk := contactSK(slotID(orgID, cur.MailID))
	if sk == contactSK(cur.ContactID) {
		if *holder == cur.ContactID {
			*holder = ""
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

// CommitContactDelete deletes the live contact cur in one transaction: its record
// gone moves out of the contacts range and the Slim index (kept under
// DELCONTACT#), its email is released so it can be imported again, it
// leaves every list (memberships and list counts), and the contacts
// counter drops. When the contact's item is the slot of an email (the one
// it was created for), a bare slot stays in its place, naming the contact
// that has that email now, if any. live says which of its lists exist
// (nil: all of them): a list deleted whose job has not dropped this
// membership yet has no count to move. contact.ErrChanged when cur moved
// on, or a list it counts went.
func (s *Store) CommitContactDelete(ctx context.Context, orgID string, cur, gone contact.Contact, live map[string]bool) error {
	rec, err := marshal(recordOf(gone))
	if err != nil {
		return err
	}
	compact(rec)
	rec["PK"], rec["SK"] = str(orgPK(orgID)), str(deletedContactSK(cur.ContactID))
	bySK := map[string]item{}
	if slotID(orgID, cur.MailID) != cur.ContactID {
		got, err := s.batchGet(ctx, slotKeys(orgID, cur.MailID))
		if err != nil {
			return err
		}
		bySK = bySortKey(got)
	}
	holder := cur.Stored.Holder
	release, err := s.slotRelease(orgID, cur, bySK, &holder)
	if err != nil {
		return err
	}
	items := append([]types.TransactWriteItem{s.contactRemove(orgID, cur, holder), {Put: &types.Put{TableName: &s.table, Item: rec}}}, release...)
	items = append(items, s.counterAdd(orgID, counterContacts, -1))
	items = append(items, s.searchDeletes(orgID, cur)...)
	for _, listID := range slices.Compact(slices.Sorted(slices.Values(cur.ListIDs))) {
		switch {
		case live != nil && !live[listID]:
			// No count to move, and the member item may be gone.
			if listID != onItem(cur) {
				items = append(items, types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table,
					Key: key(orgPK(orgID), memberSK(listID, cur.ContactID))}})
			}
		case listID != onItem(cur):
			items = append(items, s.memberDelete(orgID, listID, cur.ContactID), s.listCountAdd(orgID, listID, -1))
		default:
			items = append(items, s.listCountAdd(orgID, listID, -1))
		}
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return contactChanged(err)
}

// contactRemove is the write item that takes the contact item of cur out,
// at its version: deleted, or, when the item is the slot of the email the
// contact was created for (or holds another's), a bare slot naming holder,
// if any, so the email, imported again, makes a contact with a new id and
// the deleted id never comes back.
func (s *Store) contactRemove(orgID string, cur contact.Contact, holder string) types.TransactWriteItem {
	ifVer := aws.String("ver = :ver")
	vals := item{":ver": num(cur.Stored.Version)}
	if !isSlotID(cur.ContactID) && holder == "" {
		return types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: key(orgPK(orgID), contactSK(cur.ContactID)),
			ConditionExpression: ifVer, ExpressionAttributeValues: vals}}
	}
	slot := item{"PK": str(orgPK(orgID)), "SK": str(contactSK(cur.ContactID))}
	if holder != "" {
		slot["holder"] = str(holder)
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: slot,
		ConditionExpression: ifVer, ExpressionAttributeValues: vals}}
}

// ExistingLists reports which of org's lists listIDs exist (a deleted
// list is gone at once, while its deletion job may not yet have dropped
// its memberships), in one BatchGetItem.
func (s *Store) ExistingLists(ctx context.Context, orgID string, listIDs []string) (map[string]bool, error) {
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
