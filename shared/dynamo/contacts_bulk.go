package dynamo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// AddContactsToList creates or merges contacts (one per email) and makes
// them members of a list of org. Every input is validated on its own; a
// repeated email, within the inputs or already stored, merges into the one
// contact. A new contact is one conditional put at its email's slot (its
// membership of its first list is on the item); an item whose condition
// fails (a concurrent import of the same email, a concurrent change) is
// read again and retried on its own, so one item never holds the others
// back. The counts move once per chunk of 100, by what the chunk's writes
// did (see applyCounts). It returns NOT_FOUND when the list does not exist.
func (s *Store) AddContactsToList(ctx context.Context, orgID, listID string, inputs []gifting.ContactInput, src gifting.Source) (gifting.BulkResult, error) {
	// The list, and whether the organization's contacts are all in the
	// slot model (its contacts step is done), in one read.
	got, err := s.batchGet(ctx, []item{key(orgPK(orgID), listSK(listID)), key(orgPK(orgID), migrateSK(stepContacts))})
	if err != nil {
		return gifting.BulkResult{}, err
	}
	var listFound, slotsOnly bool
	for _, it := range got {
		switch attrS(it, "SK") {
		case listSK(listID):
			listFound = true
		case migrateSK(stepContacts):
			var c migrationCursor
			if err := unmarshal(it, &c); err != nil {
				return gifting.BulkResult{}, err
			}
			slotsOnly = c.Done
		}
	}
	if !listFound {
		return gifting.BulkResult{}, gifting.NotFound("contact list", listID)
	}
	var res gifting.BulkResult
	for start := 0; start < len(inputs); start += 100 {
		if err := s.addContactsChunk(ctx, orgID, listID, inputs[start:min(start+100, len(inputs))], start, src, slotsOnly, &res); err != nil {
			return gifting.BulkResult{}, err
		}
	}
	return res, nil
}

func (s *Store) addContactsChunk(ctx context.Context, orgID, listID string, inputs []gifting.ContactInput, offset int, src gifting.Source, slotsOnly bool, res *gifting.BulkResult) error {
	invalid := make([]error, len(inputs))
	byEmail := map[string]*pending{}
	owner := make([]*pending, len(inputs))
	var ps []*pending
	for i := range inputs {
		in := inputs[i]
		if err := in.Validate(); err != nil {
			invalid[i] = err
			continue
		}
		if p := byEmail[in.MailID]; p != nil {
			if err := p.input.Absorb(in); err != nil {
				invalid[i] = err
				continue
			}
			owner[i] = p
			continue
		}
		p := &pending{input: in}
		p.replan = func(ctx context.Context) (contactPlan, error) {
			return s.planUpsert(ctx, orgID, p.input, src, listID)
		}
		byEmail[in.MailID], owner[i] = p, p
		ps = append(ps, p)
	}
	if err := s.planAll(ctx, orgID, listID, ps, src, slotsOnly); err != nil {
		return err
	}
	if err := s.apply(ctx, orgID, ps); err != nil {
		return err
	}
	for i, p := range owner {
		it := gifting.BulkItem{Index: offset + i}
		switch {
		case invalid[i] != nil:
			it.MailID, _ = gifting.NormalizeEmail(inputs[i].MailID)
			it.Fail(invalid[i])
		case p.err != nil:
			it.MailID = p.input.MailID
			it.Fail(p.err)
		default:
			it.Status, it.ContactID, it.MailID = p.plan.status, p.plan.contact.ContactID, p.plan.contact.MailID
			if p.reported {
				// A repeat of an email earlier in the batch: it was merged
				// into the same contact.
				it.Status = gifting.BulkMerged
			}
			p.reported = true
		}
		res.Add(it)
	}
	return nil
}

// planAll plans every pending upsert with two reads in all: the emails'
// slots (and, unless slotsOnly, their legacy markers) in one BatchGetItem
// (two for 100 emails with markers), then the contacts they name that the
// first read did not already return, in another. slotsOnly says the
// organization has no legacy markers: its contacts step of `admin migrate`
// is done, or it was created with slots.
func (s *Store) planAll(ctx context.Context, orgID, listID string, ps []*pending, src gifting.Source, slotsOnly bool) error {
	keys := make([]item, 0, 2*len(ps))
	for _, p := range ps {
		k := slotKeys(orgID, p.input.MailID)
		if slotsOnly {
			k = k[:1] // the slot; no marker to look for
		}
		keys = append(keys, k...)
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return err
	}
	bySK := bySortKey(got)
	slots := make([]emailSlot, len(ps))
	var ids []string
	for i, p := range ps {
		if slots[i], err = slotOf(orgID, p.input.MailID, bySK); err != nil {
			return err
		}
		if slots[i].holder != "" && slots[i].cur == nil {
			ids = append(ids, slots[i].holder)
		}
	}
	stored, err := s.contactsByID(ctx, orgID, ids)
	if err != nil {
		return err
	}
	for i, p := range ps {
		sl := slots[i]
		cur, ok := stored[sl.holder]
		if sl.cur != nil {
			cur, ok = *sl.cur, true
		}
		switch {
		case sl.holder == "":
			p.plan, p.err = s.planCreate(orgID, p.input, src, listID, sl.taken)
		case ok:
			p.plan, p.err = s.planMerge(orgID, cur, p.input, src, listID)
		default:
			// Deleted between the two reads: plan again from scratch.
			p.plan, p.err = p.replan(ctx)
		}
	}
	return nil
}

// pending is one contact's write in a bulk operation: its plan, how to plan
// it again after a concurrent change, and the final error if it failed.
type pending struct {
	input    gifting.ContactInput
	plan     contactPlan
	err      error
	replan   func(ctx context.Context) (contactPlan, error)
	reported bool
	// done is set when the plan was written.
	done bool
	// stale is set when the plan's condition failed in a batch: it is
	// planned again before it is written.
	stale bool
}

// writers is how many writes of one bulk chunk are in flight at once.
const writers = 16

// apply writes the plans of ps that have anything to write, then moves
// the counters by what was written (applyCounts). New contacts at free
// slots go first, in batches of inserts (insertAll: 4 requests for 100
// new contacts); the other plans, and the new contacts a batch did not
// write, are written each on its own (a plain put when it is one item,
// else a small transaction), several at once. A plan whose condition
// fails (its slot taken meanwhile, a concurrent change) is read, planned
// and tried again alone. Per-item failures end up in pending.err; apply
// itself fails only when the context ends or the counters cannot be
// written.
func (s *Store) apply(ctx context.Context, orgID string, ps []*pending) error {
	var inserts, single []*pending
	for _, p := range ps {
		switch {
		case p.err != nil || len(p.plan.items) == 0:
		case p.plan.insert:
			inserts = append(inserts, p)
		default:
			single = append(single, p)
		}
	}
	if len(inserts) > 0 {
		items := make([]item, len(inserts))
		for i, p := range inserts {
			items[i] = p.plan.items[0].Put.Item
		}
		for i, err := range s.insertAll(ctx, items) {
			p := inserts[i]
			switch {
			case err == nil:
				p.done = true
			case errors.Is(err, errKeyExists):
				// A concurrent import of the email got there first: merge
				// into its contact.
				p.stale = true
				single = append(single, p)
			default:
				single = append(single, p)
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	work := make(chan *pending)
	errs := make(chan error, writers)
	var wg sync.WaitGroup
	for range min(writers, len(single)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				if err := s.applyOne(ctx, p); err != nil {
					errs <- err
					for range work {
					}
					return
				}
			}
		}()
	}
	for _, p := range single {
		work <- p
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return s.applyCounts(ctx, orgID, ps)
}

// applyCounts adds to the organization's contacts counter the contacts the
// written plans created, and to each joined list's count its new members:
// once for the whole chunk, after its writes, so a counter only ever
// counts what exists. A list deleted meanwhile takes no
// members: the contacts that joined it in this chunk leave it again and
// report NOT_FOUND.
func (s *Store) applyCounts(ctx context.Context, orgID string, ps []*pending) error {
	created, joined := int64(0), map[string]int64{}
	for _, p := range ps {
		if !p.done {
			continue
		}
		if p.plan.status == gifting.BulkCreated {
			created++
		}
		if p.plan.joined != "" {
			joined[p.plan.joined]++
		}
	}
	// Every counter in one batch of UPDATEs, one request; a counter the
	// batch could not move (its item or number not there yet, the list
	// deleted meanwhile, a client without batches) is moved by an
	// UpdateItem, as it always was.
	lists := slices.Sorted(maps.Keys(joined))
	var statements []types.BatchStatementRequest
	if created > 0 {
		statements = append(statements, s.addStatement(key(orgPK(orgID), counterSK(counterContacts)), "n", created, ""))
	}
	now := s.Now().Format(timeLayout)
	for _, list := range lists {
		statements = append(statements, s.addStatement(key(orgPK(orgID), listSK(list)), "contactCount", joined[list], now))
	}
	errs := s.runStatements(ctx, statements)
	if created > 0 {
		if errs[0] != nil {
			if err := s.update(ctx, s.counterAdd(orgID, counterContacts, created).Update); err != nil {
				return fmt.Errorf("count contacts: %w", err)
			}
		}
		errs = errs[1:]
	}
	for i, list := range lists {
		if errs[i] == nil {
			continue
		}
		err := s.update(ctx, s.listCountAdd(orgID, list, joined[list]).Update)
		if !isConditionFailed(err) {
			if err != nil {
				return fmt.Errorf("count list members: %w", err)
			}
			continue
		}
		for _, p := range ps {
			if p.done && p.plan.joined == list {
				if err := s.leaveGoneList(ctx, orgID, list, p.plan.contact.ContactID); err != nil {
					return err
				}
				p.err = gifting.NotFound("contact list", list)
			}
		}
	}
	return nil
}

// leaveGoneList takes contactID out of the deleted list listID (its
// listIds, and the first-list place on its item).
func (s *Store) leaveGoneList(ctx context.Context, orgID, listID, contactID string) error {
	cur, err := s.contact(ctx, orgID, contactID)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		cur, err = storedContact{}, nil
	}
	if err != nil {
		return err
	}
	return s.dropMember(ctx, orgID, listID, contactID, cur)
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

// applyOne writes one plan, reading and planning again after a concurrent
// change, until it succeeds or fails for good.
func (s *Store) applyOne(ctx context.Context, p *pending) error {
	if p.stale {
		p.stale = false
		p.plan, p.err = p.replan(ctx)
	}
	for attempt := 1; p.err == nil && len(p.plan.items) > 0; attempt++ {
		err := s.writeItems(ctx, p.plan.items)
		if err == nil {
			p.done = true
			return nil
		}
		if err := s.retryWait(ctx, err, attempt); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			p.err = fmt.Errorf("write contact: %w", err)
			return nil
		}
		p.plan, p.err = p.replan(ctx)
	}
	if p.err == nil {
		p.done = true // nothing to write: already as planned
	}
	return nil
}

// writeItems writes items: a single put on its own (a plain write costs
// half a transaction's), more in one transaction. A failed condition of
// the single put is reported as a cancelled transaction would be.
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
