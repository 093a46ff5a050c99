package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// CreateContactList stores a new, empty contact list of org created by
// userID. It returns VALIDATION_FAILED for a missing or overlong name.
func (s *Store) CreateContactList(ctx context.Context, orgID, userID, name, description string) (gifting.ContactList, error) {
	if err := gifting.ValidateContactList(&name, &description); err != nil {
		return gifting.ContactList{}, err
	}
	now := s.Now()
	l := gifting.ContactList{
		ListID: s.NewID(), OrganizationID: orgID, Name: name, Description: description,
		CreatedBy: userID, CreatedAt: now, UpdatedAt: now,
	}
	return l, s.putNew(ctx, orgID, listSK(l.ListID), l)
}

// ContactList returns a contact list of org, or NOT_FOUND.
func (s *Store) ContactList(ctx context.Context, orgID, listID string) (gifting.ContactList, error) {
	return getOrNotFound[gifting.ContactList](ctx, s, orgPK(orgID), listSK(listID), gifting.NotFound("contact list", listID))
}

// ListContactLists returns a page of org's contact lists whose name or
// description holds every word of search (gifting.MatchesSearch; "" keeps
// them all) sorted by sortBy (one of ContactListSorts; ties by id), and
// the number of those lists.
//
// An organization has tens to hundreds of lists, not millions: a page reads
// them all in one Query (lists are small items) and sorts in memory.
func (s *Store) ListContactLists(ctx context.Context, orgID, search, sortBy string, order gifting.SortOrder, page gifting.PageRequest) ([]gifting.ContactList, int, error) {
	items, err := s.queryPrefix(ctx, orgPK(orgID), listPrefix, true)
	if err != nil {
		return nil, 0, err
	}
	lists := make([]gifting.ContactList, 0, len(items))
	for _, it := range items {
		var l gifting.ContactList
		if err := unmarshal(it, &l); err != nil {
			return nil, 0, err
		}
		if gifting.MatchesSearch(l.Name+"\n"+l.Description, search) {
			lists = append(lists, l)
		}
	}
	slices.SortStableFunc(lists, func(a, b gifting.ContactList) int {
		var c int
		switch sortBy {
		case "name":
			c = cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		case "updatedAt":
			c = a.UpdatedAt.Compare(b.UpdatedAt)
		case "contactCount":
			c = cmp.Compare(a.ContactCount, b.ContactCount)
		default:
			c = a.CreatedAt.Compare(b.CreatedAt)
		}
		if c == 0 {
			c = cmp.Compare(a.ListID, b.ListID)
		}
		if order == gifting.Desc {
			return -c
		}
		return c
	})
	lo, hi := page.Window(len(lists))
	return lists[lo:hi], len(lists), nil
}

// ListContactIDs returns the ids of every member of a list of org, in
// listMemberPage's order. It returns NOT_FOUND for an unknown list.
func (s *Store) ListContactIDs(ctx context.Context, orgID, listID string) ([]string, error) {
	if _, err := s.ContactList(ctx, orgID, listID); err != nil {
		return nil, err
	}
	return s.memberIDs(ctx, orgID, listID, -1)
}

// memberIDs returns up to n (all when n < 0) member ids of a list in
// listMemberPage's order.
func (s *Store) memberIDs(ctx context.Context, orgID, listID string, n int) ([]string, error) {
	var ids []string
	after := ""
	for n < 0 || len(ids) < n {
		want := 1000
		if n >= 0 {
			want = n - len(ids)
		}
		page, next, err := s.listMemberPage(ctx, orgID, listID, after, want)
		if err != nil {
			return nil, err
		}
		ids = append(ids, page...)
		if next == "" {
			break
		}
		after = next
	}
	return ids, nil
}

// Cursor prefixes of listMemberPage: in the Slim range of the contacts
// whose first list it is, or among the MEMBER# items.
const (
	cursorFirst  = "s/"
	cursorMember = "m/"
)

// listMemberPage returns up to limit member contact ids of org's list
// listID after the opaque cursor after ("" from the start), and the cursor
// to continue from ("" when nothing follows). The members come from two
// places: first the contacts whose first list it is (their Slim entries,
// LSK begins_with <list>#, newest first), then those for whom it is a
// later list (MEMBER#<list># items, in id order). Every reader of a list's
// members goes through it: the list's page, the launch, the deletion job,
// campaign totals. The Slim part is eventually consistent: a contact added
// in the last moment may be missed by a read made at once. Both parts are
// always read: the list's contactCount, which trails its members while an
// import runs, never decides that the second holds none.
func (s *Store) listMemberPage(ctx context.Context, orgID, listID, after string, limit int) ([]string, string, error) {
	var ids []string
	if after == "" || strings.HasPrefix(after, cursorFirst) {
		in := s.slimQuery(contactsLPK(orgID), false)
		in.KeyConditionExpression = aws.String("LPK = :lpk AND begins_with(LSK, :list)")
		in.ExpressionAttributeValues[":list"] = str(listID + "#")
		in.ProjectionExpression = aws.String("LSK, SK")
		if after != "" {
			lsk, id, _ := strings.Cut(strings.TrimPrefix(after, cursorFirst), "/")
			in.ExclusiveStartKey = item{"LPK": str(contactsLPK(orgID)), "LSK": str(lsk), "PK": str(orgPK(orgID)), "SK": str(contactSK(id))}
		}
		for len(ids) < limit {
			in.Limit = aws.Int32(int32(limit - len(ids)))
			res, err := s.db.Query(ctx, in)
			if err != nil {
				return nil, "", fmt.Errorf("query first-list members: %w", err)
			}
			for _, it := range res.Items {
				ids = append(ids, strings.TrimPrefix(attrS(it, "SK"), contactPrefix))
			}
			if res.LastEvaluatedKey == nil {
				break
			}
			if len(ids) == limit {
				last := res.Items[len(res.Items)-1]
				return ids, cursorFirst + attrS(last, "LSK") + "/" + strings.TrimPrefix(attrS(last, "SK"), contactPrefix), nil
			}
			in.ExclusiveStartKey = res.LastEvaluatedKey
		}
		// The first part is read to its end.
		if len(ids) >= limit {
			return ids, cursorMember, nil
		}
		after = cursorMember
	}
	from := strings.TrimPrefix(after, cursorMember)
	more, last, err := s.keyPage(ctx, orgPK(orgID), memberPrefix(listID), from, limit-len(ids))
	if err != nil {
		return nil, "", err
	}
	ids = append(ids, more...)
	if last == "" {
		return ids, "", nil
	}
	return ids, cursorMember + last, nil
}

// memberPut is the transaction item that makes a contact a member of a
// list. The member item holds only its key: the contact item carries the
// data, and a small item costs one write unit.
func (s *Store) memberPut(orgID, listID, contactID string) types.TransactWriteItem {
	return types.TransactWriteItem{Put: &types.Put{
		TableName: &s.table, Item: key(orgPK(orgID), memberSK(listID, contactID)),
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	}}
}

// memberDelete is the transaction item that removes a membership, which
// must exist.
func (s *Store) memberDelete(orgID, listID, contactID string) types.TransactWriteItem {
	return types.TransactWriteItem{Delete: &types.Delete{
		TableName: &s.table, Key: key(orgPK(orgID), memberSK(listID, contactID)),
		ConditionExpression: aws.String("attribute_exists(PK)"),
	}}
}

// listCountAdd is the transaction item that moves a list's contactCount by
// delta; the list must exist.
func (s *Store) listCountAdd(orgID, listID string, delta int64) types.TransactWriteItem {
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table, Key: key(orgPK(orgID), listSK(listID)),
		UpdateExpression:          aws.String("SET updatedAt = :now ADD contactCount :d"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: item{":d": num(delta), ":now": str(s.Now().Format(timeLayout))},
	}}
}

// timeLayout is how timestamps are stored: RFC 3339 UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// AddContactIDsToList adds existing contacts of org to a list, any number of
// them (100 per round). Each contact is added or reported on its own:
// unknown or deleted ids fail, members already in the list are unchanged.
// It returns NOT_FOUND when the list does not exist.
func (s *Store) AddContactIDsToList(ctx context.Context, orgID, listID string, ids []string) (gifting.BulkResult, error) {
	if _, err := s.ContactList(ctx, orgID, listID); err != nil {
		return gifting.BulkResult{}, err
	}
	var res gifting.BulkResult
	for start := 0; start < len(ids); start += 100 {
		chunk := ids[start:min(start+100, len(ids))]
		stored, err := s.contactsByID(ctx, orgID, chunk)
		if err != nil {
			return gifting.BulkResult{}, err
		}
		first := map[string]*pending{}
		var ps []*pending
		for _, id := range chunk {
			if first[id] != nil {
				continue
			}
			p := &pending{replan: func(ctx context.Context) (contactPlan, error) {
				cur, err := s.contact(ctx, orgID, id)
				if err != nil {
					return contactPlan{}, err
				}
				return s.planJoin(orgID, cur, listID)
			}}
			if cur, ok := stored[id]; ok {
				p.plan, p.err = s.planJoin(orgID, cur, listID)
			} else {
				p.err = gifting.NotFound("contact", id)
			}
			first[id] = p
			ps = append(ps, p)
		}
		if err := s.apply(ctx, orgID, ps); err != nil {
			return gifting.BulkResult{}, err
		}
		for i, id := range chunk {
			p := first[id]
			it := gifting.BulkItem{Index: start + i, ContactID: id}
			switch {
			case p.err != nil:
				it.Fail(p.err)
			case slices.IndexFunc(chunk, func(x string) bool { return x == id }) < i:
				it.Status = gifting.BulkUnchanged
			default:
				it.Status, it.MailID = p.plan.status, p.plan.contact.MailID
			}
			res.Add(it)
		}
	}
	return res, nil
}

// planJoin plans adding the stored contact cur to a list, conditioned on
// cur's version; a member already in the list needs no write.
func (s *Store) planJoin(orgID string, cur storedContact, listID string) (contactPlan, error) {
	c := cur.Contact
	if c.InList(listID) {
		return contactPlan{contact: c, status: gifting.BulkUnchanged}, nil
	}
	if len(c.ListIDs) >= MaxListsPerContact {
		return contactPlan{}, gifting.Errorf(gifting.CodeConflict, "the contact is already in %d lists, the most one contact can be in", MaxListsPerContact)
	}
	c.ListIDs = append(slices.Clone(c.ListIDs), listID)
	c.UpdatedAt = s.Now()
	put, err := s.contactPut(orgID, cur, c)
	if err != nil {
		return contactPlan{}, err
	}
	p := contactPlan{contact: c, status: gifting.BulkAdded, joined: listID, items: []types.TransactWriteItem{put}}
	if !cur.legacy() && len(cur.ListIDs) == 0 {
		// The contact's first list: the item itself holds the membership.
		p.firstJoined = true
	} else {
		p.items = append(p.items, s.memberPut(orgID, listID, c.ContactID))
	}
	return p, nil
}

// leaveItems are the write items that take the stored contact cur out of
// listID, c being cur as it will be (without listID): the contact, and the
// membership's item. When listID was the contact's first list (held on the
// item), the next list becomes the first: its MEMBER# item goes, as the
// contact item now holds that membership.
func (s *Store) leaveItems(orgID string, cur storedContact, c gifting.Contact, listID string) ([]types.TransactWriteItem, error) {
	put, err := s.contactPut(orgID, cur, c)
	if err != nil {
		return nil, err
	}
	items := []types.TransactWriteItem{put}
	switch {
	case cur.onItem() != listID:
		items = append(items, s.memberDelete(orgID, listID, c.ContactID))
	case len(c.ListIDs) > 0:
		items = append(items, s.memberDelete(orgID, c.ListIDs[0], c.ContactID))
	}
	return items, nil
}

// RemoveContactFromList takes a contact out of a list: the membership, the
// contact's listIds and the list's count change in one transaction. It
// returns NOT_FOUND when the list or the contact does not exist or the
// contact is not in the list.
func (s *Store) RemoveContactFromList(ctx context.Context, orgID, listID, contactID string) error {
	if _, err := s.ContactList(ctx, orgID, listID); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			// The list deleted meanwhile fails the write's count update
			// on every attempt: say so instead of retrying.
			if _, err := s.ContactList(ctx, orgID, listID); err != nil {
				return err
			}
		}
		cur, err := s.contact(ctx, orgID, contactID)
		if err != nil {
			return err
		}
		if !cur.InList(listID) {
			return gifting.Errorf(gifting.CodeNotFound, "contact %q is not in list %q", contactID, listID)
		}
		c := cur.Contact
		c.ListIDs = slices.DeleteFunc(slices.Clone(c.ListIDs), func(id string) bool { return id == listID })
		c.UpdatedAt = s.Now()
		items, err := s.leaveItems(orgID, cur, c, listID)
		if err != nil {
			return err
		}
		_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: append(items, s.listCountAdd(orgID, listID, -1))})
		if err == nil {
			return nil
		}
		if err := s.retryWait(ctx, err, attempt); err != nil {
			return fmt.Errorf("remove from list: %w", err)
		}
	}
}

// retryWait decides after a failed write of a contact whether to read again
// and retry: it waits and returns nil when the failure was a concurrent
// change (a failed version condition or a conflict) or throttling, and
// returns err otherwise or after too many attempts.
func (s *Store) retryWait(ctx context.Context, err error, attempt int) error {
	reasons := cancellationReasons(err)
	again := retryable(err) || isConditionFailed(err)
	for i := range reasons {
		if reasonCode(reasons, i) == "ConditionalCheckFailed" {
			again = true
		}
	}
	if !again || attempt >= maxAttempts {
		return err
	}
	return sleep(ctx, backoff(attempt))
}
