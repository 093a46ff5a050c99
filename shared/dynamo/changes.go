package dynamo

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/webhook"
)

// Change records: every change a tenant can subscribe to is written as a
// record in the same transaction as the change, so a change that did not
// commit has no record and one that did always has one. A record holds one
// or more messages (a launch slice's recipients share one record):
//
//	PK         ORG#<org>#CHG (changesPK)
//	SK         a ULID from the store's clock when the transaction was built
//	rec        "change": what the stream's filter matches
//	org        the organization
//	msgs       the messages, each a JSON string (messageItem)
//	expiresAt  webhook.Retention on (the table's TTL): the feed keeps 30 days
//
// A balance change's record is its ledger entry instead (ledgerPut), with
// the same attributes but PK, SK and expiresAt. Message ids are the
// record's id and the message's index (webhook.MessageID).
//
// Storage writes and reads the records and decides nothing about them:
// who a message goes to, the feed's window and pages, and how a message
// leaves the service as JSON are the webhook slice's and shared/wire's.

// changeRecordKind is the rec attribute of change records, which the
// stream's event filter (template.yaml) matches.
const changeRecordKind = "change"

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
	it["PK"], it["SK"], it["expiresAt"] = str(changesPK(orgID)), str(id), num(now.Add(webhook.Retention).Unix())
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
		b, err := encodeMessage(messageItemOf(webhook.MessageID(id, i), now, orgID, m))
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
// record is stamped anew with each attempt, which decides the balance
// change again (wallet.Apply).
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
			var m storedMessage
			if err := json.Unmarshal([]byte(sv.Value), &m); err != nil {
				return nil, fmt.Errorf("change message: %w", err)
			}
			b, err := encodeMessage(messageItem{ID: webhook.MessageID(id, n), Type: m.Type, CreatedAt: now,
				OrganizationID: m.OrganizationID, Data: m.Data, Ref: m.Ref})
			if err != nil {
				return nil, fmt.Errorf("change %s: %w", m.Type, err)
			}
			bodies[n] = str(string(b))
		}
		put := *it.Put
		put.Item = maps.Clone(put.Item)
		put.Item["SK"], put.Item["msgs"] = str(id), &types.AttributeValueMemberL{Value: bodies}
		put.Item["expiresAt"] = num(now.Add(webhook.Retention).Unix())
		out[i].Put = &put
	}
	return out, nil
}

// ChangeRecord is a committed change record as the stream delivers it
// (the webhook slice's Record).
type ChangeRecord = webhook.Record

// ChangeHandler receives committed change records: the webhook slice's
// App.Deliver. An error makes the reader give the record again.
type ChangeHandler = webhook.RecordHandler

// ChangeRecordOf decodes a change record's item (or a stream record's new
// image); ok is false for an item that is not a change record, or holds no
// message (a ledger entry written before ledger entries held them).
func ChangeRecordOf(it map[string]types.AttributeValue) (_ webhook.Record, ok bool) {
	if attrS(it, "rec") != changeRecordKind {
		return webhook.Record{}, false
	}
	r := webhook.Record{ID: strings.TrimPrefix(attrS(it, "SK"), ledgerSK("")), OrgID: attrS(it, "org")}
	if l, ok := it["msgs"].(*types.AttributeValueMemberL); ok {
		for i, v := range l.Value {
			if sv, ok := v.(*types.AttributeValueMemberS); ok {
				r.Messages = append(r.Messages, messageOf(r.ID, i, sv.Value))
			}
		}
	}
	return r, r.OrgID != "" && len(r.Messages) > 0
}
