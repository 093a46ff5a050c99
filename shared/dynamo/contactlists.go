package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// The contact slice's lists: a list (LIST#<id>) and its memberships, the
// members' reads and the commits of a contact leaving a list; a list's
// edit and delete are in contactlists_edit.go. A contact's first list is
// held on the contact item itself (its Slim sort key begins with it); the
// others are MEMBER#<list>#<contact> items holding only their key.

// listItem is a contact list as stored.
type listItem struct {
	ListID         string    `json:"listId"`
	OrganizationID string    `json:"organizationId"`
	Name           string    `json:"name"`
	Description    string    `json:"description"`
	ContactCount   int64     `json:"contactCount"`
	CreatedBy      string    `json:"createdBy"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

func listItemOf(l contact.List) listItem { return listItem(l) }

func (it listItem) list() contact.List { return contact.List(it) }

// List returns a contact list of org; contact.ErrListNotFound when there
// is none.
func (s *Store) List(ctx context.Context, orgID, listID string) (contact.List, error) {
	it, err := getOrNotFound[listItem](ctx, s, orgPK(orgID), listSK(listID), contact.ErrListNotFound)
	return it.list(), err
}

// Lists returns every contact list of org, in one Query (lists are small
// items, and an organization has tens to hundreds).
func (s *Store) Lists(ctx context.Context, orgID string) ([]contact.List, error) {
	items, err := s.queryPrefix(ctx, orgPK(orgID), listPrefix, true)
	if err != nil {
		return nil, err
	}
	lists := make([]contact.List, 0, len(items))
	for _, it := range items {
		var l listItem
		if err := unmarshal(it, &l); err != nil {
			return nil, err
		}
		lists = append(lists, l.list())
	}
	return lists, nil
}

// CommitNewList writes l, new.
func (s *Store) CommitNewList(ctx context.Context, l contact.List) error {
	return s.putNew(ctx, l.OrganizationID, listSK(l.ListID), listItemOf(l))
}

// MemberIDs returns up to n (all when n < 0) member ids of a list of org,
// in listMemberPage's order.
func (s *Store) MemberIDs(ctx context.Context, orgID, listID string, n int) ([]string, error) {
	return s.memberIDs(ctx, orgID, listID, n)
}

// ListMemberPage implements contact.Store: listMemberPage of the page and
// one member more (whether a page follows, in the same Queries), and the
// position of the page's last member when one follows.
func (s *Store) ListMemberPage(ctx context.Context, orgID, listID, after string, limit int) ([]string, string, error) {
	keys, _, err := s.listMemberKeys(ctx, orgID, listID, after, limit+1)
	if err != nil || len(keys) <= limit {
		return memberKeyIDs(keys), "", err
	}
	return memberKeyIDs(keys[:limit]), keys[limit-1].Cursor, nil
}

// memberKeyIDs are the contact ids of keys.
func memberKeyIDs(keys []contact.MemberKey) []string {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ContactID
	}
	return ids
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
// to continue from ("" when nothing follows): listMemberKeys' ids.
func (s *Store) listMemberPage(ctx context.Context, orgID, listID, after string, limit int) ([]string, string, error) {
	keys, next, err := s.listMemberKeys(ctx, orgID, listID, after, limit)
	return memberKeyIDs(keys), next, err
}

// ListMemberKeys reads a page of a list's members with a cursor each
// (contact.Store): listMemberKeys, after a cursor checked to be one of
// this list's.
func (s *Store) ListMemberKeys(ctx context.Context, orgID, listID, after string, limit int) ([]contact.MemberKey, string, error) {
	if !memberCursorOf(listID, after) {
		return nil, "", contact.ErrBadCursor
	}
	return s.listMemberKeys(ctx, orgID, listID, after, limit)
}

// memberCursorOf reports whether c is "" or a cursor listMemberKeys hands
// out for listID: s/<LSK of the list>/<id> or m/<member key of the list>
// (m/ alone: the member part from its start).
func memberCursorOf(listID, c string) bool {
	if rest, ok := strings.CutPrefix(c, cursorFirst); ok {
		i := strings.LastIndexByte(rest, '/')
		return i > 0 && strings.HasPrefix(rest[:i], listID+"#") && gifting.ValidID(rest[i+1:])
	}
	if rest, ok := strings.CutPrefix(c, cursorMember); ok {
		id, ok := strings.CutPrefix(rest, memberPrefix(listID))
		return rest == "" || ok && gifting.ValidID(id)
	}
	return c == ""
}

// listMemberKeys returns up to limit members of org's list listID after
// the opaque cursor after ("" from the start), each with the cursor that
// starts right after it, and the cursor to continue from ("" when nothing
// follows). The members come from two places: first the contacts whose
// first list it is (their Slim entries, LSK begins_with <list>#, newest
// first), then those for whom it is a later list (MEMBER#<list># items,
// in id order). Every reader of a list's members goes through it: the
// list's page and export, the launch, the deletion job, campaign totals.
// The Slim part is eventually consistent: a contact added in the last
// moment may be missed by a read made at once. Both parts are always
// read: the list's contactCount, which trails its members while an import
// runs, never decides that the second holds none.
func (s *Store) listMemberKeys(ctx context.Context, orgID, listID, after string, limit int) ([]contact.MemberKey, string, error) {
	var keys []contact.MemberKey
	if after == "" || strings.HasPrefix(after, cursorFirst) {
		in := s.slimQuery(contactsLPK(orgID), false)
		in.KeyConditionExpression = aws.String("LPK = :lpk AND begins_with(LSK, :list)")
		in.ExpressionAttributeValues[":list"] = str(listID + "#")
		in.ProjectionExpression = aws.String("LSK, SK")
		if after != "" {
			rest := strings.TrimPrefix(after, cursorFirst)
			i := strings.LastIndexByte(rest, '/')
			in.ExclusiveStartKey = item{"LPK": str(contactsLPK(orgID)), "LSK": str(rest[:i]), "PK": str(orgPK(orgID)), "SK": str(contactSK(rest[i+1:]))}
		}
		for len(keys) < limit {
			in.Limit = aws.Int32(int32(limit - len(keys)))
			res, err := s.db.Query(ctx, in)
			if err != nil {
				return nil, "", fmt.Errorf("query first-list members: %w", err)
			}
			for _, it := range res.Items {
				id := strings.TrimPrefix(attrS(it, "SK"), contactPrefix)
				keys = append(keys, contact.MemberKey{ContactID: id, Cursor: cursorFirst + attrS(it, "LSK") + "/" + id})
			}
			if res.LastEvaluatedKey == nil {
				break
			}
			if len(keys) == limit {
				return keys, keys[len(keys)-1].Cursor, nil
			}
			in.ExclusiveStartKey = res.LastEvaluatedKey
		}
		// The first part is read to its end.
		if len(keys) >= limit {
			return keys, cursorMember, nil
		}
		after = cursorMember
	}
	from := strings.TrimPrefix(after, cursorMember)
	more, last, err := s.keyPage(ctx, orgPK(orgID), memberPrefix(listID), from, limit-len(keys))
	if err != nil {
		return nil, "", err
	}
	for _, id := range more {
		keys = append(keys, contact.MemberKey{ContactID: id, Cursor: cursorMember + memberSK(listID, id)})
	}
	if last == "" {
		return keys, "", nil
	}
	return keys, cursorMember + last, nil
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

// leaveItems are the write items that take the contact cur (as read) out
// of listID, c being cur as it will be (without listID): the contact, and
// the membership's item. When listID was the contact's first list (held
// on the item), the next list becomes the first: its MEMBER# item goes, as
// the contact item now holds that membership.
func (s *Store) leaveItems(orgID string, cur, c contact.Contact, listID string) ([]types.TransactWriteItem, error) {
	items, err := s.contactWrites(orgID, c)
	if err != nil {
		return nil, err
	}
	switch {
	case onItem(cur) != listID:
		items = append(items, s.memberDelete(orgID, listID, c.ContactID))
	case len(c.ListIDs) > 0:
		items = append(items, s.memberDelete(orgID, c.ListIDs[0], c.ContactID))
	}
	return items, nil
}

// condList names a list's count in a transaction: the list must exist.
const condList = "list"

// CommitLeave takes the contact before out of listID, writing after (before
// without it) and the membership's items, and the list's count down when
// counted, in one transaction. contact.ErrListNotFound when a counted list
// is gone, contact.ErrChanged when the contact moved on.
func (s *Store) CommitLeave(ctx context.Context, orgID, listID string, before, after contact.Contact, counted bool) error {
	var tx txn
	items, err := s.leaveItems(orgID, before, after, listID)
	if err != nil {
		return err
	}
	tx.add("", items...)
	if counted {
		tx.add(condList, s.listCountAdd(orgID, listID, -1))
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx.items})
	if tx.failed(cancellationReasons(err), condList) {
		return contact.ErrListNotFound
	}
	return contactChanged(err)
}

// CommitMemberGone deletes the membership item of a contact that is gone
// (or no longer names the list) from the deleted list listID.
func (s *Store) CommitMemberGone(ctx context.Context, orgID, listID, contactID string) error {
	del := types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table, Key: key(orgPK(orgID), memberSK(listID, contactID))}}
	_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{del}})
	return contactChanged(err)
}
