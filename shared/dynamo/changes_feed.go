package dynamo

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/webhook"
)

// ChangeRecords reads the change records of orgID in r, in id order, as
// the sequence is consumed (webhook.Store). Change records are in two
// ranges, both in id order: the records of their own (changesPK) and the
// ledger entries of balance changes (ledgerPut), merged here; each is read
// a Query page at a time, strongly consistent, each page sized to what the
// consumer may still take (feedLimit).
func (s *Store) ChangeRecords(ctx context.Context, orgID string, r webhook.Range) iter.Seq2[webhook.Record, error] {
	return func(yield func(webhook.Record, error) bool) {
		sources := [2]*feedSource{
			s.feedSource(changesPK(orgID), "", r.From, r.Upto),
			s.feedSource(orgPK(orgID), ledgerSK(""), r.LedgerFrom, r.Upto),
		}
		yielded := 0 // messages
		for {
			var next *feedSource
			for _, src := range sources {
				ok, err := src.more(ctx, r.Batch-yielded)
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
			rec, ok := ChangeRecordOf(next.pop())
			if !ok {
				continue
			}
			if !yield(rec, nil) {
				return
			}
			yielded += len(rec.Messages)
		}
	}
}

// feedSource reads the items of one partition whose sort keys are prefix
// followed by a record id from from ("" for the first) to upto, in id
// order, a Query page at a time.
type feedSource struct {
	s      *Store
	prefix string
	in     dynamodb.QueryInput
	buf    []item
	done   bool
	// records and messages count what the source has read so far, to
	// size its next page (feedLimit).
	records, messages int
}

func (s *Store) feedSource(pk, prefix, from, upto string) *feedSource {
	cond, values := "PK = :pk AND SK BETWEEN :from AND :upto", item{":pk": str(pk), ":from": str(prefix + from), ":upto": str(prefix + upto)}
	if prefix+from == "" { // a key condition takes no empty string
		cond = "PK = :pk AND SK <= :upto"
		delete(values, ":from")
	}
	return &feedSource{s: s, prefix: prefix, in: dynamodb.QueryInput{
		TableName: &s.table, KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: values,
		ConsistentRead: aws.Bool(true),
	}}
}

// more reports whether the source has an item left, reading its next page
// when its buffer is empty; need is how many more messages the consumer
// may take (0 or less: it reads on past its page).
func (f *feedSource) more(ctx context.Context, need int) (bool, error) {
	for len(f.buf) == 0 && !f.done {
		f.in.Limit = aws.Int32(feedLimit(need, f.records, f.messages, aws.ToInt32(f.in.Limit)))
		out, err := f.s.db.Query(ctx, &f.in)
		if err != nil {
			return false, fmt.Errorf("query changes: %w", err)
		}
		f.buf, f.in.ExclusiveStartKey, f.done = out.Items, out.LastEvaluatedKey, out.LastEvaluatedKey == nil
		for _, it := range out.Items {
			f.records++
			if l, ok := it["msgs"].(*types.AttributeValueMemberL); ok {
				f.messages += len(l.Value)
			}
		}
	}
	return len(f.buf) > 0, nil
}

// feedLimit is how many records a source's next Query page reads, after it
// read records holding messages, when the consumer may still take need
// messages and its last page took last. A Query is billed for every item
// it reads, and records vary from one message (~300 bytes) to a launch
// slice's 500 (~100 KB): a page of a fixed number of records would read
// a megabyte of launch records to serve one. So the first page reads one
// record, and the next ones as many as the messages per record read so far
// say will fill the need (at most webhook.MaxPage); while none held a
// message (ledger entries from before they held them), or once the
// consumer reads past its page, each page is twice the last.
func feedLimit(need, records, messages int, last int32) int32 {
	switch {
	case records == 0:
		return 1
	case messages == 0 || need <= 0:
		return min(max(2*last, 1), webhook.MaxPage)
	}
	return int32(min(max((need*records+messages-1)/messages, 1), webhook.MaxPage))
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
func (s *Store) Recipients(ctx context.Context, orgID string, keys []webhook.RecipientKey) (map[webhook.RecipientKey]recipient.Recipient, error) {
	bySK := make(map[string]webhook.RecipientKey, len(keys))
	ks := make([]item, len(keys))
	for i, k := range keys {
		sk := recipientSK(k.CampaignID, k.RecipientID)
		bySK[sk], ks[i] = k, key(orgPK(orgID), sk)
	}
	// Eventually consistent: the feed serves records FeedLag (5 s) old,
	// and a recipient's snapshot is its state as of the read; half the
	// read units of a strongly consistent read.
	got, err := s.batchGetAs(ctx, ks, false)
	if err != nil {
		return nil, err
	}
	out := make(map[webhook.RecipientKey]recipient.Recipient, len(got))
	for _, it := range got {
		r, err := s.readRecipient(ctx, it)
		if err != nil {
			return nil, err
		}
		out[bySK[attrS(it, "SK")]] = r.Recipient
	}
	return out, nil
}
