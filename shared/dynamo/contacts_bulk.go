package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// AddContactsToList creates or merges contacts (one per email) and makes
// them members of a list of org. Every input is validated on its own; a
// repeated email, within the inputs or already stored, merges into the one
// contact. Each contact is written atomically with its email marker,
// membership and counts: items are written together in transactions of up
// to 100 items, and an item whose condition fails (a concurrent import of
// the same email, a concurrent change) is read again and retried on its
// own, so one item never holds the others back. It returns NOT_FOUND when
// the list does not exist.
func (s *Store) AddContactsToList(ctx context.Context, orgID, listID string, inputs []gifting.ContactInput, src gifting.Source) (gifting.BulkResult, error) {
	if _, err := s.ContactList(ctx, orgID, listID); err != nil {
		return gifting.BulkResult{}, err
	}
	var res gifting.BulkResult
	for start := 0; start < len(inputs); start += 100 {
		if err := s.addContactsChunk(ctx, orgID, listID, inputs[start:min(start+100, len(inputs))], start, src, &res); err != nil {
			return gifting.BulkResult{}, err
		}
	}
	return res, nil
}

func (s *Store) addContactsChunk(ctx context.Context, orgID, listID string, inputs []gifting.ContactInput, offset int, src gifting.Source, res *gifting.BulkResult) error {
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
			p.input.Absorb(in)
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
	if err := s.planAll(ctx, orgID, listID, ps, src); err != nil {
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

// planAll plans every pending upsert with two reads in all: the email
// markers in one BatchGetItem, then the contacts they name in another.
func (s *Store) planAll(ctx context.Context, orgID, listID string, ps []*pending, src gifting.Source) error {
	keys := make([]item, len(ps))
	for i, p := range ps {
		keys[i] = key(orgPK(orgID), emailSK(p.input.MailID))
	}
	markers, err := s.batchGet(ctx, keys)
	if err != nil {
		return err
	}
	idOf := map[string]string{}
	var ids []string
	for _, it := range markers {
		var m emailMarker
		if err := unmarshal(it, &m); err != nil {
			return err
		}
		sk, _ := it["SK"].(*types.AttributeValueMemberS)
		if sk == nil {
			return fmt.Errorf("email marker without sort key")
		}
		email := strings.TrimPrefix(sk.Value, emailSK(""))
		idOf[email] = m.ContactID
		ids = append(ids, m.ContactID)
	}
	stored, err := s.contactsByID(ctx, orgID, ids)
	if err != nil {
		return err
	}
	for _, p := range ps {
		id, known := idOf[p.input.MailID]
		cur, ok := stored[id]
		switch {
		case !known:
			p.plan, p.err = s.planCreate(orgID, p.input, src, listID)
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
}

// maxTransactItems is DynamoDB's limit on the items of one transaction.
const maxTransactItems = 100

// apply writes the plans of ps that have anything to write, grouped into
// transactions that also carry the counters they move. A plan whose own
// items make its group fail is retried alone (read again, planned again);
// the rest of its group goes ahead without it. Per-item failures end up in
// pending.err; apply itself fails only when the context ends.
func (s *Store) apply(ctx context.Context, orgID string, ps []*pending) error {
	var group []*pending
	n := 0
	flush := func() error {
		err := s.applyGroup(ctx, orgID, group)
		group, n = nil, 0
		return err
	}
	for _, p := range ps {
		if p.err != nil || len(p.plan.items) == 0 {
			continue
		}
		if n+len(p.plan.items)+2 > maxTransactItems {
			if err := flush(); err != nil {
				return err
			}
		}
		group = append(group, p)
		n += len(p.plan.items)
	}
	if len(group) > 0 {
		return flush()
	}
	return nil
}

// counters returns the counter updates of a group: the organization's
// contacts counter and the count of the list joined.
func (s *Store) counters(orgID string, group []*pending) []types.TransactWriteItem {
	created, joined := 0, map[string]int64{}
	for _, p := range group {
		if p.plan.status == gifting.BulkCreated {
			created++
		}
		if p.plan.joined != "" {
			joined[p.plan.joined]++
		}
	}
	var out []types.TransactWriteItem
	if created > 0 {
		out = append(out, s.counterAdd(orgID, counterContacts, int64(created)))
	}
	for list, d := range joined {
		out = append(out, s.listCountAdd(orgID, list, d))
	}
	return out
}

// applyGroup writes a group in one transaction. When it is cancelled, the
// plans whose items were at fault are applied one by one and the others are
// tried again together.
func (s *Store) applyGroup(ctx context.Context, orgID string, group []*pending) error {
	for attempt := 1; len(group) > 0; attempt++ {
		var items []types.TransactWriteItem
		for _, p := range group {
			items = append(items, p.plan.items...)
		}
		items = append(items, s.counters(orgID, group)...)
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		reasons := cancellationReasons(err)
		var innocent, guilty []*pending
		at := 0
		for _, p := range group {
			fault := false
			for j := range p.plan.items {
				fault = fault || reasonCode(reasons, at+j) != ""
			}
			at += len(p.plan.items)
			if fault {
				guilty = append(guilty, p)
			} else {
				innocent = append(innocent, p)
			}
		}
		if (reasons == nil && !retryable(err)) || attempt >= 3 {
			// Not a cancellation we can attribute: let every item try
			// alone, so only the one at fault fails.
			guilty, innocent = group, nil
		}
		for _, p := range guilty {
			if err := s.applyOne(ctx, orgID, p); err != nil {
				return err
			}
		}
		group = innocent
		if len(guilty) == 0 && len(group) > 0 {
			// Only the counters were contended: wait, then try again.
			if err := sleep(ctx, backoff(attempt)); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyOne writes one plan in its own transaction, reading and planning
// again after a concurrent change, until it succeeds or fails for good.
func (s *Store) applyOne(ctx context.Context, orgID string, p *pending) error {
	for attempt := 1; p.err == nil && len(p.plan.items) > 0; attempt++ {
		items := append(append([]types.TransactWriteItem{}, p.plan.items...), s.counters(orgID, []*pending{p})...)
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		if reasons := cancellationReasons(err); reasonCode(reasons, len(items)-1) == "ConditionalCheckFailed" && p.plan.joined != "" {
			p.err = gifting.NotFound("contact list", p.plan.joined)
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
	return nil
}
