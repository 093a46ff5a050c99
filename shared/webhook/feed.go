package webhook

import (
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/giftcampaign/service/shared/gifting"
)

// The change feed's rules.
const (
	// Retention is how long the change feed keeps a message (the table's
	// TTL removes the change records of their own after it; the ledger
	// entries that hold a balance change's messages stay, and the feed
	// stops serving their messages after it).
	Retention = 30 * 24 * time.Hour
	// FeedLag is how old a record must be before the feed serves it. Ids
	// come from each writer's clock when its transaction is built, not
	// from the commit, so a transaction that commits late can carry an id
	// earlier than one already committed; serving only records older than
	// FeedLag means a page never passes an id that a transaction still in
	// flight could take. (A transaction's single TransactWriteItems call,
	// with the SDK's retries, takes far less.)
	FeedLag = 5 * time.Second
	// MaxPage is the most messages a page of the feed or of the
	// deliveries log holds.
	MaxPage = 100
)

// CheckLimit refuses a page size outside 1 to MaxPage (VALIDATION_FAILED
// naming "limit").
func CheckLimit(limit int) error {
	if limit < 1 || limit > MaxPage {
		return gifting.Problems{"limit": "must be from 1 to 100"}.Err()
	}
	return nil
}

// Cursor is a place in the feed: after message Index of record Record
// (the zero Cursor: before the oldest message kept).
type Cursor struct {
	Record string
	Index  int
}

// ParseCursor reads the cursor a page returned (its NextCursor, a
// MessageID; "" for the start). Anything else is VALIDATION_FAILED naming
// "after".
func ParseCursor(after string) (Cursor, error) {
	if after == "" {
		return Cursor{Index: -1}, nil
	}
	rec, idx, ok := strings.Cut(after, ".")
	n, err := strconv.Atoi(idx)
	if _, perr := ulid.ParseStrict(rec); perr != nil || !ok || err != nil || n < 0 {
		return Cursor{}, gifting.Problems{"after": "must be a cursor the feed returned"}.Err()
	}
	return Cursor{Record: rec, Index: n}, nil
}

// Range is the records a page reads, by record id: the change records of
// their own from From, the ledger entries holding a balance change's
// messages from LedgerFrom, both up to Upto, inclusive ("" From: from the
// first).
type Range struct {
	From, LedgerFrom, Upto string
	// Batch is how many records the first read of each takes (the
	// page's limit: a record holds at least one message).
	Batch int
	// Served is how many messages of the record From a page before served
	// (the cursor's index and one; 0 from the start): storage sizes its
	// reads by the messages a page may still take.
	Served int
}

// Window is the range of records a page of limit messages after c reads at
// now: up to the
// records FeedLag old, and the ledger's from Retention ago. ok is false
// when c is past what may be served yet (a cursor from a clock ahead of
// this one): the page is empty.
func Window(c Cursor, now time.Time, limit int) (_ Range, ok bool) {
	upto := idAt(now.Add(-FeedLag))
	if c.Record > upto {
		return Range{}, false
	}
	return Range{From: c.Record, LedgerFrom: max(c.Record, idAt(now.Add(-Retention))), Upto: upto, Batch: limit, Served: max(c.Index+1, 0)}, true
}

// idAt is the smallest record id of t's millisecond.
func idAt(t time.Time) string { return gifting.FirstIDAt(t) }

// Page is a page of the feed: messages in commit order, and the cursor
// that continues after the last one (the cursor given, when the page is
// empty: pass it again later).
type Page struct {
	Messages []Message
	Next     string
}

// pager fills a page of up to limit messages after a cursor from records
// read in id order.
type pager struct {
	after Cursor
	limit int
	page  Page
}

// newPager starts the page after cursor (the string given, after parsed).
func newPager(cursor string, after Cursor, limit int) *pager {
	return &pager{after: after, limit: limit, page: Page{Messages: []Message{}, Next: cursor}}
}

// add takes the messages of r that follow the cursor, up to the page's
// limit, and reports whether the page has room for more.
func (p *pager) add(r Record) bool {
	for i, m := range r.Messages {
		if r.ID < p.after.Record || (r.ID == p.after.Record && i <= p.after.Index) {
			continue
		}
		if len(p.page.Messages) == p.limit {
			return false
		}
		p.page.Messages, p.page.Next = append(p.page.Messages, m), MessageID(r.ID, i)
	}
	return len(p.page.Messages) < p.limit
}
