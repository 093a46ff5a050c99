package dynamo

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/webhook"
)

// ChangeRecords reads the change records of orgID in r, in id order, as
// the sequence is consumed (webhook.Store). Change records are in two
// ranges, both in id order: the records of their own (changesPK) and the
// ledger entries of balance changes (ledgerPut), merged here; each is read
// a Query page at a time, strongly consistent.
func (s *Store) ChangeRecords(ctx context.Context, orgID string, r webhook.Range) iter.Seq2[webhook.Record, error] {
	return func(yield func(webhook.Record, error) bool) {
		sources := [2]*feedSource{
			s.feedSource(changesPK(orgID), "", r.From, r.Upto, r.Batch),
			s.feedSource(orgPK(orgID), ledgerSK(""), r.LedgerFrom, r.Upto, r.Batch),
		}
		for {
			var next *feedSource
			for _, src := range sources {
				ok, err := src.more(ctx)
				if err != nil {
					yield(webhook.Record{}, err)
					return
				}
				if ok && (next == nil || src.id() < next.id()) {
					next = src
				}
			}
			if next == nil {
				return
			}
			// A ledger entry from before it held its messages holds none.
			if rec, ok := ChangeRecordOf(next.pop()); ok && !yield(rec, nil) {
				return
			}
		}
	}
}

// feedSource reads the items of one partition whose sort keys are prefix
// followed by a record id from from ("" for the first) to upto, in id
// order: a Query page of up to batch items, then pages twice as big, up to
// webhook.MaxPage.
type feedSource struct {
	s      *Store
	prefix string
	in     dynamodb.QueryInput
	buf    []item
	done   bool
}

func (s *Store) feedSource(pk, prefix, from, upto string, batch int) *feedSource {
	cond, values := "PK = :pk AND SK BETWEEN :from AND :upto", item{":pk": str(pk), ":from": str(prefix + from), ":upto": str(prefix + upto)}
	if prefix+from == "" { // a key condition takes no empty string
		cond = "PK = :pk AND SK <= :upto"
		delete(values, ":from")
	}
	return &feedSource{s: s, prefix: prefix, in: dynamodb.QueryInput{
		TableName: &s.table, KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: values,
		ConsistentRead: aws.Bool(true), Limit: aws.Int32(int32(min(max(batch, 1), webhook.MaxPage))),
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
		f.in.Limit = aws.Int32(min(2**f.in.Limit, webhook.MaxPage))
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

// Recipients reads the recipients keys name as they are now, with one
// BatchGetItem per 100 (webhook.Store); a recipient that no longer exists
// (its campaign was deleted) is absent from the map.
func (s *Store) Recipients(ctx context.Context, orgID string, keys []webhook.RecipientKey) (map[webhook.RecipientKey]gifting.Recipient, error) {
	bySK := make(map[string]webhook.RecipientKey, len(keys))
	ks := make([]item, len(keys))
	for i, k := range keys {
		sk := recipientSK(k.CampaignID, k.RecipientID)
		bySK[sk], ks[i] = k, key(orgPK(orgID), sk)
	}
	got, err := s.batchGet(ctx, ks)
	if err != nil {
		return nil, err
	}
	out := make(map[webhook.RecipientKey]gifting.Recipient, len(got))
	for _, it := range got {
		r, err := s.readRecipient(ctx, it)
		if err != nil {
			return nil, err
		}
		out[bySK[attrS(it, "SK")]] = r.Recipient
	}
	return out, nil
}
