package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/wire"
)

// Change records: every change a tenant can subscribe to is written as a
// record in the same transaction as the change, so a change that did not
// commit has no record and one that did always has one. A record holds one
// or more messages (a launch slice's recipients share one record):
//
//	PK         ORG#<org>#CHG (changesPK)
//	SK         a ULID from the store's clock when the transaction was built
//	rec        "change": what the stream's filter matches
//	msgs       the messages, each its JSON body as delivered
//	expiresAt  30 days on (the table's TTL): the feed keeps 30 days
//
// Message ids are the record's id and the message's index (<ULID>.<nn>, at
// least two digits), so a cursor can stop inside a record; the feed
// compares the index as a number (a launch's record holds up to 500).

// ChangeRetention is how long the change feed keeps a message.
const ChangeRetention = 30 * 24 * time.Hour

// FeedLag is how old a record must be before the feed serves it. Ids come
// from each writer's clock when its transaction is built, not from the
// commit, so a transaction that commits late can carry an id earlier than
// one already committed; serving only records older than FeedLag means a
// page never passes an id that a transaction still in flight could take.
// (A transaction's single TransactWriteItems call, with the SDK's
// retries, takes far less.)
const FeedLag = 5 * time.Second

// changeRecordKind is the rec attribute of change records, which the
// stream's event filter (template.yaml) matches.
const changeRecordKind = "change"

// maxChangeLimit is the largest page of the feed.
const maxChangeLimit = 100

// changePut is the transaction item that records msgs, the changes of one
// transaction of orgID. It fills in each message's id, time and
// organization.
func (s *Store) changePut(orgID string, msgs ...gifting.Change) (types.TransactWriteItem, error) {
	now := s.Now()
	id := s.NewID()
	it, err := changeAttrs(orgID, id, now, msgs)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	it["PK"], it["SK"], it["expiresAt"] = str(changesPK(orgID)), str(id), num(now.Add(ChangeRetention).Unix())
	return types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it}}, nil
}

// changeAttrs are the attributes that make an item the change record id
// of msgs, written at now: rec, org and the messages, each with its id,
// time and organization filled in. A change record is an item of its own
// (changePut) or, for a balance change, the ledger entry the transaction
// writes anyway (ledgerPut), whose id is then the record's.
func changeAttrs(orgID, id string, now time.Time, msgs []gifting.Change) (item, error) {
	bodies := make([]types.AttributeValue, len(msgs))
	for i, m := range msgs {
		m.ID, m.CreatedAt, m.OrganizationID = fmt.Sprintf("%s.%02d", id, i), now, orgID
		b, err := wire.Marshal(storedChangeOf(m))
		if err != nil {
			return nil, fmt.Errorf("change %s: %w", m.Type, err)
		}
		bodies[i] = str(string(b))
	}
	return item{"rec": str(changeRecordKind), "org": str(orgID), "msgs": &types.AttributeValueMemberL{Value: bodies}}, nil
}

// restampChanges returns items with each change record of its own
// (changePut) given a new id and time from the store's clock, its
// messages' ids and times with it, their data untouched. A ledger entry's
// record is stamped anew by ChangeBalance, which builds each attempt.
func (s *Store) restampChanges(items []types.TransactWriteItem) ([]types.TransactWriteItem, error) {
	out := slices.Clone(items)
	for i, it := range out {
		if it.Put == nil || attrS(it.Put.Item, "rec") != changeRecordKind || !strings.HasSuffix(attrS(it.Put.Item, "PK"), changesSuffix) {
			continue
		}
		msgs, ok := it.Put.Item["msgs"].(*types.AttributeValueMemberL)
		if !ok {
			continue
		}
		now, id := s.Now(), s.NewID()
		bodies := make([]types.AttributeValue, len(msgs.Value))
		for n, v := range msgs.Value {
			sv, ok := v.(*types.AttributeValueMemberS)
			if !ok {
				return nil, fmt.Errorf("change record %s: message %d is not a string", attrS(it.Put.Item, "SK"), n)
			}
			var m storedChange
			var data struct {
				Data json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal([]byte(sv.Value), &m); err != nil {
				return nil, fmt.Errorf("change message: %w", err)
			}
			if err := json.Unmarshal([]byte(sv.Value), &data); err != nil {
				return nil, fmt.Errorf("change message: %w", err)
			}
			m.Data, m.ID, m.CreatedAt = data.Data, fmt.Sprintf("%s.%02d", id, n), now
			b, err := wire.Marshal(m)
			if err != nil {
				return nil, fmt.Errorf("change %s: %w", m.Type, err)
			}
			bodies[n] = str(string(b))
		}
		put := *it.Put
		put.Item = maps.Clone(put.Item)
		put.Item["SK"], put.Item["msgs"] = str(id), &types.AttributeValueMemberL{Value: bodies}
		put.Item["expiresAt"] = num(now.Add(ChangeRetention).Unix())
		out[i].Put = &put
	}
	return out, nil
}

// ChangeRecord is a committed change record as the stream delivers it.
type ChangeRecord struct {
	OrgID string
	// Messages are the JSON bodies, in order.
	Messages []json.RawMessage
}

// ChangeRecordOf decodes a stream record's new image; ok is false for an
// image that is not a change record.
func ChangeRecordOf(image map[string]types.AttributeValue) (ChangeRecord, bool) {
	if attrS(image, "rec") != changeRecordKind {
		return ChangeRecord{}, false
	}
	r := ChangeRecord{OrgID: attrS(image, "org")}
	if l, ok := image["msgs"].(*types.AttributeValueMemberL); ok {
		for _, v := range l.Value {
			if sv, ok := v.(*types.AttributeValueMemberS); ok {
				r.Messages = append(r.Messages, json.RawMessage(sv.Value))
			}
		}
	}
	return r, r.OrgID != "" && len(r.Messages) > 0
}

// Changes returns the messages of orgID after the message id after ("" for
// the oldest kept), in id order, at most limit (1 to 100), with the cursor
// to pass next. Only records older than FeedLag are served (see FeedLag),
// so an empty page's cursor is the one given. Change records are in two
// ranges, both in id order: the records of their own (changesPK) and the
// ledger entries of balance changes (ledgerPut), merged here. It reads a
// Query page of each, and one BatchGetItem per 100 messages holding a
// recipient by reference (HydrateChanges).
func (s *Store) Changes(ctx context.Context, orgID, after string, limit int) (gifting.ChangePage, error) {
	if limit < 1 || limit > maxChangeLimit {
		return gifting.ChangePage{}, gifting.Problems{"limit": "must be from 1 to 100"}.Err()
	}
	// The cursor's record and message index. The index is compared as a
	// number: a record holds up to 500 messages, and "<id>.100" sorts
	// before "<id>.99" as a string.
	from, fromIdx := "", -1
	if after != "" {
		rec, idx, ok := strings.Cut(after, ".")
		n, err := strconv.Atoi(idx)
		if _, perr := ulid.ParseStrict(rec); perr != nil || !ok || err != nil || n < 0 {
			return gifting.ChangePage{}, gifting.Problems{"after": "must be a cursor the feed returned"}.Err()
		}
		from, fromIdx = rec, n
	}
	now := s.Now()
	upto := ulid.MustNew(ulid.Timestamp(now.Add(-FeedLag)), zeroEntropy{}).String()
	page := gifting.ChangePage{Items: []json.RawMessage{}, NextCursor: after}
	if from > upto {
		// A cursor from a clock ahead of this one: nothing is old enough yet.
		return page, nil
	}
	// Ledger entries are kept for ever; the feed serves their messages for
	// ChangeRetention, as the table's TTL does the records of their own.
	oldest := ulid.MustNew(ulid.Timestamp(now.Add(-ChangeRetention)), zeroEntropy{}).String()
	sources := [2]*feedSource{
		s.feedSource(changesPK(orgID), "", from, upto, limit),
		s.feedSource(orgPK(orgID), ledgerSK(""), max(from, oldest), upto, limit),
	}
read:
	for len(page.Items) < limit {
		var next *feedSource
		for _, src := range sources {
			if ok, err := src.more(ctx); err != nil {
				return gifting.ChangePage{}, err
			} else if ok && (next == nil || src.id() < next.id()) {
				next = src
			}
		}
		if next == nil {
			break
		}
		id, it := next.id(), next.pop()
		r, _ := ChangeRecordOf(it) // a ledger entry from before it held its messages holds none
		for i, m := range r.Messages {
			if id < from || (id == from && i <= fromIdx) {
				continue
			}
			mid := fmt.Sprintf("%s.%02d", id, i)
			if len(page.Items) == limit {
				break read
			}
			page.Items, page.NextCursor = append(page.Items, m), mid
		}
	}
	items, err := s.HydrateChanges(ctx, orgID, page.Items)
	if err != nil {
		return gifting.ChangePage{}, err
	}
	page.Items = items
	return page, nil
}

// feedSource reads the items of one partition whose sort keys are prefix
// followed by a record id from from ("" for the first) to upto, in id
// order: a Query page of up to limit items, then pages twice as big, up to
// maxChangeLimit.
type feedSource struct {
	s      *Store
	prefix string
	in     dynamodb.QueryInput
	buf    []item
	done   bool
}

func (s *Store) feedSource(pk, prefix, from, upto string, limit int) *feedSource {
	cond, values := "PK = :pk AND SK BETWEEN :from AND :upto", item{":pk": str(pk), ":from": str(prefix + from), ":upto": str(prefix + upto)}
	if prefix+from == "" { // a key condition takes no empty string
		cond = "PK = :pk AND SK <= :upto"
		delete(values, ":from")
	}
	return &feedSource{s: s, prefix: prefix, in: dynamodb.QueryInput{
		TableName: &s.table, KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: values,
		ConsistentRead: aws.Bool(true), Limit: aws.Int32(int32(limit)),
	}}
}

// more reports whether the source has an item left, reading its next page
// when its buffer is empty.
func (f *feedSource) more(ctx context.Context) (bool, error) {
	for len(f.buf) == 0 && !f.done {
		out, err := f.s.db.Query(ctx, &f.in)
		if err != nil {
			return false, fmt.Errorf("query changes: %w", err)
		}
		f.buf, f.in.ExclusiveStartKey, f.done = out.Items, out.LastEvaluatedKey, out.LastEvaluatedKey == nil
		// A page that was not enough (ledger entries from before they held
		// messages hold none) is followed by bigger ones.
		f.in.Limit = aws.Int32(min(2**f.in.Limit, maxChangeLimit))
	}
	return len(f.buf) > 0, nil
}

// id is the record id of the source's next item (more reported true).
func (f *feedSource) id() string { return strings.TrimPrefix(attrS(f.buf[0], "SK"), f.prefix) }

// pop takes the source's next item.
func (f *feedSource) pop() item {
	it := f.buf[0]
	f.buf = f.buf[1:]
	return it
}

// zeroEntropy makes the smallest ULID of a millisecond: the feed's upper
// bound.
type zeroEntropy struct{}

func (zeroEntropy) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// withChange returns items followed by the record of change: for
// transactions whose items a caller assembles.
func (s *Store) withChange(orgID string, change gifting.Change, items ...types.TransactWriteItem) ([]types.TransactWriteItem, error) {
	put, err := s.changePut(orgID, change)
	if err != nil {
		return nil, err
	}
	return append(items, put), nil
}

// recipientsCreated are the recipient.created messages of rs.
func recipientsCreated(rs []gifting.Recipient) []gifting.Change {
	out := make([]gifting.Change, len(rs))
	for i, r := range rs {
		out[i] = gifting.NewChange(gifting.ChangeRecipientCreated, r)
	}
	return out
}

// recipientStatusChanged is the recipient.status_changed message of r,
// which moved from status from, for the transaction that moves it.
func recipientStatusChanged(r gifting.Recipient, from gifting.RecipientStatus) gifting.Change {
	return gifting.NewChange(gifting.ChangeRecipientStatus, gifting.RecipientStatusChange{Recipient: r, PreviousStatus: from})
}

// storedChange is a message as its record holds it: whole, or, for a
// recipient.created or recipient.status_changed message, its recipient's
// reference (and the status it left) in place of its data (a launch's
// record names up to hundreds of recipients; their snapshots would make it
// 3 KB a recipient, written twice in its transaction). HydrateChanges puts
// the recipient's current snapshot back into the data when the message is
// read: by the feed and by the delivery of webhooks.
type storedChange struct {
	gifting.Change
	Ref *recipientRef `json:"ref,omitempty"`
}

// recipientRef names a recipient in a stored change message; a
// recipient.status_changed message keeps the status it left.
type recipientRef struct {
	CampaignID     string                  `json:"campaignId"`
	RecipientID    string                  `json:"recipientId"`
	PreviousStatus gifting.RecipientStatus `json:"previousStatus,omitempty"`
}

// storedChangeOf is the stored form of m.
func storedChangeOf(m gifting.Change) storedChange {
	switch d := m.Data.(type) {
	case gifting.Recipient:
		if m.Type == gifting.ChangeRecipientCreated {
			m.Data = nil
			return storedChange{Change: m, Ref: &recipientRef{CampaignID: d.CampaignID, RecipientID: d.RecipientID}}
		}
	case gifting.RecipientStatusChange:
		m.Data = nil
		return storedChange{Change: m, Ref: &recipientRef{CampaignID: d.CampaignID, RecipientID: d.RecipientID,
			PreviousStatus: d.PreviousStatus}}
	case wallet.Entry:
		// A wallet.* message (wallet.Plan.Message): the balance after
		// the change and its entry, in full.
		m.Data = wire.WalletChangeOf(d)
	case campaign.Campaign:
		// A campaign.* message: the campaign as the API shows it.
		m.Data = wire.CampaignOf(d)
	}
	return storedChange{Change: m}
}

// HydrateChanges returns msgs, as change records hold them, with the data
// of each message stored by reference (storedChange) filled in with the
// current snapshot of the recipient it names (with previousStatus for a
// recipient.status_changed message), read with one BatchGetItem
// per 100 of them (none when no message has a reference). A recipient
// that no longer exists (its campaign was deleted) leaves its reference as
// the data. Messages without a reference are returned as they are.
func (s *Store) HydrateChanges(ctx context.Context, orgID string, msgs []json.RawMessage) ([]json.RawMessage, error) {
	refs := make([]*storedChange, len(msgs))
	var keys []item
	seen := map[string]bool{}
	for i, raw := range msgs {
		var m storedChange
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("change message: %w", err)
		}
		if m.Ref != nil {
			refs[i] = &m
			// A recipient named twice (created, then moved) is read
			// once: BatchGetItem refuses a key given twice.
			if sk := recipientSK(m.Ref.CampaignID, m.Ref.RecipientID); !seen[sk] {
				seen[sk] = true
				keys = append(keys, key(orgPK(orgID), sk))
			}
		}
	}
	if len(keys) == 0 {
		return msgs, nil
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	bySK := make(map[string]gifting.Recipient, len(got))
	for _, it := range got {
		r, err := s.readRecipient(ctx, it)
		if err != nil {
			return nil, err
		}
		bySK[attrS(it, "SK")] = r.Recipient
	}
	out := make([]json.RawMessage, len(msgs))
	for i, raw := range msgs {
		m := refs[i]
		if m == nil {
			out[i] = raw
			continue
		}
		m.Data = *m.Ref
		if r, ok := bySK[recipientSK(m.Ref.CampaignID, m.Ref.RecipientID)]; ok {
			m.Data = r
			if m.Ref.PreviousStatus != "" {
				m.Data = gifting.RecipientStatusChange{Recipient: r, PreviousStatus: m.Ref.PreviousStatus}
			}
		}
		b, err := wire.Marshal(m.Change)
		if err != nil {
			return nil, fmt.Errorf("change %s: %w", m.Type, err)
		}
		out[i] = b
	}
	return out, nil
}
