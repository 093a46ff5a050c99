package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
)

// The commits of contacts the slice decided, one by one or many at once,
// and of the counts they move.

// contactWriters is how many writes of CommitContacts are in flight at
// once.
const contactWriters = 16

// CommitContacts writes the plans that have anything to write. New
// contacts at free slots go first, in batches of inserts (insertAll: 4
// requests for 100 new contacts); the other plans, and the new contacts a
// batch did not write, are written each on its own (a plain put when it
// is one item, else a small transaction), contactWriters at once. A new
// contact whose slot a concurrent import took is contact.ErrSlotTaken; a
// write whose condition failed, or that was contended, is
// contact.ErrChanged.
func (s *Store) CommitContacts(ctx context.Context, orgID string, plans []contact.Plan) []error {
	errs := make([]error, len(plans))
	items := make([][]types.TransactWriteItem, len(plans))
	var inserts, single []int
	for i, p := range plans {
		if p.Status == contact.StatusUnchanged {
			continue
		}
		var insert bool
		items[i], insert, errs[i] = s.planItems(orgID, p)
		switch {
		case errs[i] != nil:
		case insert:
			inserts = append(inserts, i)
		default:
			single = append(single, i)
		}
	}
	if len(inserts) > 0 {
		puts := make([]item, len(inserts))
		for k, i := range inserts {
			puts[k] = items[i][0].Put.Item
		}
		var entries []types.WriteRequest
		for k, err := range s.insertAll(ctx, puts) {
			switch {
			case err == nil:
				entries = append(entries, putRequests(items[inserts[k]][1:])...)
			case errors.Is(err, errKeyExists):
				errs[inserts[k]] = fmt.Errorf("%w: %w", contact.ErrSlotTaken, err)
			default:
				single = append(single, inserts[k])
			}
		}
		// The inserted contacts' search entries, in batches of plain puts
		// (a write unit each, half a transaction's). Should this fail or
		// the process stop first, those contacts are missing from searches
		// until `admin migrate` (contacts-search) writes their entries.
		if err := s.batchWrite(ctx, entries); err != nil {
			for k := range inserts {
				if errs[inserts[k]] == nil {
					errs[inserts[k]] = err
				}
			}
		}
	}
	eachAtMost(contactWriters, len(single), func(k int) error {
		i := single[k]
		errs[i] = contactChanged(s.writeItems(ctx, items[i]))
		return nil
	})
	return errs
}

// planItems are the write items of p, and whether they are one insert (a
// put only if its key is absent, which a batch of inserts can write). A
// new contact is put where no item is: at its email's slot, or, when that
// is taken (its Stored names no holder), under its own id with the claim
// of the slot. Any other is put over the version it was decided from.
// Joining a list adds the membership: on the contact item itself when it
// is the contact's first list, else a MEMBER# item.
func (s *Store) planItems(orgID string, p contact.Plan) ([]types.TransactWriteItem, bool, error) {
	c := p.Contact
	if p.Created() {
		it, err := contactAttrs(orgID, c)
		if err != nil {
			return nil, false, err
		}
		items := []types.TransactWriteItem{{Put: &types.Put{TableName: &s.table, Item: it,
			ConditionExpression: aws.String("attribute_not_exists(PK)")}}}
		// Its search entries follow the item (an insert's after it).
		lsk := attrS(it, "LSK")
		items = append(items, s.searchWrites(orgID, c, lsk, searchOf(orgID, c, lsk))...)
		if c.Stored.Holder == "" {
			return append(items, s.slotClaim(orgID, c.MailID, c.ContactID)), false, nil
		}
		return items, true, nil
	}
	items, err := s.contactWrites(orgID, c)
	if err != nil {
		return nil, false, err
	}
	if first := !legacyPlace(c.Stored.Place) && len(c.ListIDs) == 1; p.Joined != "" && !first {
		items = append(items, s.memberPut(orgID, p.Joined, c.ContactID))
	}
	return items, false, nil
}

// slotClaim is the write item that makes contactID the holder of email's
// slot, which exists and is free. The slot's version moves, so a write of
// the contact it is, read before, cannot drop the holder.
func (s *Store) slotClaim(orgID, email, contactID string) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table, Key: key(orgPK(orgID), contactSK(slotID(orgID, email))),
		UpdateExpression:          aws.String("SET holder = :id ADD ver :one"),
		ConditionExpression:       aws.String("attribute_exists(PK) AND attribute_not_exists(holder)"),
		ExpressionAttributeValues: item{":id": str(contactID), ":one": num(1)},
	}}
}

// writeItems writes items: a single put on its own (a plain write costs
// half a transaction's), more in one transaction.
func (s *Store) writeItems(ctx context.Context, items []types.TransactWriteItem) error {
	if len(items) == 1 && items[0].Put != nil {
		put := items[0].Put
		_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: put.TableName, Item: put.Item, ConditionExpression: put.ConditionExpression,
			ExpressionAttributeValues: put.ExpressionAttributeValues, ExpressionAttributeNames: put.ExpressionAttributeNames,
		})
		return err
	}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

// contactChanged reports a write of contacts whose condition failed (the
// contact moved on, its slot was taken, a list went) or that met a
// conflict or throttling as contact.ErrChanged: the slice reads again and
// decides again.
func contactChanged(err error) error {
	if err == nil {
		return nil
	}
	again := retryable(err) || isConditionFailed(err)
	reasons := cancellationReasons(err)
	for i := range reasons {
		if reasonCode(reasons, i) == "ConditionalCheckFailed" {
			again = true
		}
	}
	if again {
		return fmt.Errorf("%w: %w", contact.ErrChanged, err)
	}
	return err
}

// OpenCounts marks one more import chunk of org as writing (ADD pend 1 on
// COUNT#CONTACT, before its writes; its CommitCounts takes it off in the
// update that adds what it created): while any chunk is open the contacts
// counter may be short of the contacts, and a deep contacts page does not
// trust it (contactsCount). A chunk that never counts (its process died)
// leaves it open until `admin migrate` recounts. One write unit a chunk
// of up to 100 contacts.
func (s *Store) OpenCounts(ctx context.Context, orgID string) error {
	err := s.update(ctx, &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), counterSK(counterContacts)),
		UpdateExpression:          aws.String("ADD pend :one"),
		ExpressionAttributeValues: item{":one": num(1)},
	})
	if err != nil {
		return fmt.Errorf("open contacts count: %w", err)
	}
	return nil
}

// CommitCounts adds created to the organization's contacts counter (and
// closes the chunk OpenCounts opened, when opened) and joined[list] to
// each list's count: every counter in one batch of UPDATEs, one request.
// A counter the batch could not move (its item or number not there yet,
// the list deleted meanwhile, a client without batches) is moved by an
// UpdateItem, as it always was; a list whose item is gone is reported,
// its count unmoved.
func (s *Store) CommitCounts(ctx context.Context, orgID string, created int64, joined map[string]int64, opened bool) ([]string, error) {
	lists := slices.Sorted(maps.Keys(joined))
	var statements []types.BatchStatementRequest
	counting := created > 0 || opened
	if counting {
		statements = append(statements, s.contactsCountStatement(orgID, created, opened))
	}
	now := s.Now().Format(timeLayout)
	for _, list := range lists {
		statements = append(statements, s.addStatement(key(orgPK(orgID), listSK(list)), "contactCount", joined[list], now))
	}
	errs := s.runStatements(ctx, statements)
	if counting {
		if errs[0] != nil {
			u := s.counterAdd(orgID, counterContacts, created).Update
			if opened {
				u.UpdateExpression = aws.String("ADD n :d, pend :close")
				u.ExpressionAttributeValues[":close"] = num(-1)
			}
			if err := s.update(ctx, u); err != nil {
				return nil, fmt.Errorf("count contacts: %w", err)
			}
		}
		errs = errs[1:]
	}
	var gone []string
	for i, list := range lists {
		if errs[i] == nil {
			continue
		}
		err := s.update(ctx, s.listCountAdd(orgID, list, joined[list]).Update)
		switch {
		case isConditionFailed(err):
			gone = append(gone, list)
		case err != nil:
			return nil, fmt.Errorf("count list members: %w", err)
		}
	}
	return gone, nil
}

// update runs one write item's update on its own.
func (s *Store) update(ctx context.Context, u *types.Update) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: u.TableName, Key: u.Key, UpdateExpression: u.UpdateExpression,
		ConditionExpression: u.ConditionExpression, ExpressionAttributeValues: u.ExpressionAttributeValues,
		ExpressionAttributeNames: u.ExpressionAttributeNames,
	})
	return err
}

// contactsCountStatement adds created to COUNT#CONTACT's n and, when
// opened, takes one off its pend (the chunk OpenCounts opened), in one
// PartiQL UPDATE: the count and the chunk's close are one write.
func (s *Store) contactsCountStatement(orgID string, created int64, opened bool) types.BatchStatementRequest {
	st := s.addStatement(key(orgPK(orgID), counterSK(counterContacts)), "n", created, "")
	if opened {
		text := strings.Replace(*st.Statement, " WHERE ", " SET pend = pend - ? WHERE ", 1)
		st.Statement = aws.String(text)
		st.Parameters = append([]types.AttributeValue{st.Parameters[0], num(1)}, st.Parameters[1:]...)
	}
	return st
}
