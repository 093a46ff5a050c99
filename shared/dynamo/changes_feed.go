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
//
// The sources are read one at a time, and one with nothing buffered is
// read only when its unread records may come before the next buffered one
// (feedSource.floor). When the next change record alone fills the page,
// the ledger is read only up to it, as many entries as the page may take
// (they all come first): a page that a launch's record fills costs one
// Query of each source, where it took a third when the ledger's first
// entry held no message.
func (s *Store) ChangeRecords(ctx context.Context, orgID string, r webhook.Range) iter.Seq2[webhook.Record, error] {
	return func(yield func(webhook.Record, error) bool) {
		sources := []*feedSource{
			s.feedSource(changesPK(orgID), "", r.From, r.Upto),
			s.feedSource(orgPK(orgID), ledgerSK(""), r.LedgerFrom, r.Upto),
		}
		sources[1].small = true // a ledger entry is under a kilobyte
		yielded := 0            // messages
		for {
			next, err := nextSource(ctx, sources, r, r.Batch-yielded)
			if err != nil {
				yield(webhook.Record{}, err)
				return
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

// nextSource is the source whose buffered record comes next in id order
// (the first source of equals), nil when every source is done; need is
// how many more messages the consumer may take. A source with an empty
// buffer is read first, one source a read, unless every record it has not
// read comes after the buffered one.
func nextSource(ctx context.Context, sources []*feedSource, r webhook.Range, need int) (*feedSource, error) {
	for {
		var next *feedSource
		for _, src := range sources {
			if len(src.buf) > 0 && (next == nil || src.id() < next.id()) {
				next = src
			}
		}
		var read *feedSource
		for _, src := range sources {
			if len(src.buf) == 0 && !src.done && (next == nil || src.floor == "" || src.floor < next.id()) {
				read = src
				break
			}
		}
		if read == nil {
			return next, nil
		}
		bound := ""
		if next != nil && read.small && need > 0 && next.unserved(r) >= need {
			bound = next.id()
		}
		if err := read.more(ctx, need, bound); err != nil {
			return nil, err
		}
	}
}

// feedSource reads the items of one partition whose sort keys are prefix
// followed by a record id from from ("" for the first) to upto, in id
// order, a Query page at a time.
type feedSource struct {
	s          *Store
	pk, prefix string
	from, upto string
	in         dynamodb.QueryInput
	buf        []item
	done       bool
	// small: the source's records are small, so a page may read as many
	// as the consumer may take messages without sizing them first.
	small bool
	// floor, when not "", is an id that every record the source has not
	// read comes after.
	floor string
	// records and messages count what the source has read so far, to
	// size its next page (feedLimit).
	records, messages int
}

func (s *Store) feedSource(pk, prefix, from, upto string) *feedSource {
	f := &feedSource{s: s, pk: pk, prefix: prefix, from: from, upto: upto, in: dynamodb.QueryInput{
		TableName: &s.table, KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :from AND :upto"),
		ExpressionAttributeValues: item{":pk": str(pk), ":from": str(prefix + from), ":upto": str(prefix + upto)},
		ConsistentRead:            aws.Bool(true),
	}}
	if prefix+from == "" { // a key condition takes no empty string
		f.in.KeyConditionExpression = aws.String("PK = :pk AND SK <= :upto")
		delete(f.in.ExpressionAttributeValues, ":from")
	}
	return f
}

// more reads the source's next page into its empty buffer; need is how
// many more messages the consumer may take (0 or less: it reads on past
// its page). bound, when not "", is the id of a record another source
// holds that fills the page: the page reads only up to it, as many
// records as the page may take (every one comes first), and, having read
// them all, the source's next page starts after it.
func (f *feedSource) more(ctx context.Context, need int, bound string) error {
	limit := feedLimit(need, f.records, f.messages, aws.ToInt32(f.in.Limit))
	bounded := bound != "" && bound < f.upto
	if bounded {
		if bound < f.from {
			f.floor = bound // nothing unread lies at or before it
			return nil
		}
		limit = int32(min(need, webhook.MaxPage))
		f.in.ExpressionAttributeValues[":upto"] = str(f.prefix + bound)
	}
	f.in.Limit = aws.Int32(limit)
	out, err := f.s.db.Query(ctx, &f.in)
	f.in.ExpressionAttributeValues[":upto"] = str(f.prefix + f.upto)
	if err != nil {
		return fmt.Errorf("query changes: %w", err)
	}
	f.buf, f.in.ExclusiveStartKey = out.Items, out.LastEvaluatedKey
	for _, it := range out.Items {
		f.records++
		if l, ok := it["msgs"].(*types.AttributeValueMemberL); ok {
			f.messages += len(l.Value)
		}
	}
	switch {
	case out.LastEvaluatedKey != nil:
		f.floor = strings.TrimPrefix(attrS(out.LastEvaluatedKey, "SK"), f.prefix)
	case bounded:
		// Read to bound: the next page starts right after it.
		f.floor = bound
		f.in.ExclusiveStartKey = item{"PK": str(f.pk), "SK": str(f.prefix + bound)}
	default:
		f.done = true
	}
	return nil
}

// unserved is how many messages of the source's next record a page of r
// has not served yet (more reported true).
func (f *feedSource) unserved(r webhook.Range) int {
	n := 0
	if l, ok := f.buf[0]["msgs"].(*types.AttributeValueMemberL); ok {
		n = len(l.Value)
	}
	if f.id() == r.From {
		n -= r.Served
	}
	return n
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
