package webhook

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestParseCursor: the feed takes back only the cursors it gives, message
// ids (a record's ULID and the message's index), and says so of anything
// else.
func TestParseCursor(t *testing.T) {
	t.Parallel()
	const rec = "01KAQ0YH0000000000000000RC"
	for _, tt := range []struct {
		after string
		want  Cursor
		ok    bool
	}{
		{"", Cursor{Index: -1}, true},
		{rec + ".00", Cursor{Record: rec}, true},
		{rec + ".123", Cursor{Record: rec, Index: 123}, true},
		{rec, Cursor{}, false},
		{rec + ".-1", Cursor{}, false},
		{rec + ".x", Cursor{}, false},
		{"not-a-ulid.00", Cursor{}, false},
		{strings.ToLower(rec) + "Z.00", Cursor{}, false},
	} {
		got, err := ParseCursor(tt.after)
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("ParseCursor(%q) = %+v, %v; want %+v, ok %v", tt.after, got, err, tt.want, tt.ok)
		}
		if err != nil && gifting.ErrorCode(err) != gifting.CodeValidation {
			t.Errorf("ParseCursor(%q): %v, want VALIDATION_FAILED", tt.after, err)
		}
	}
}

// TestWindow: a page reads records up to FeedLag old, the ledger's from
// Retention ago (or the cursor, when later), and nothing when the cursor
// is past what may be served yet; Served counts the cursor's record's
// messages already served (after message 0: one).
func TestWindow(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	upto, oldest := idAt(now.Add(-FeedLag)), idAt(now.Add(-Retention))
	recent := idAt(now.Add(-time.Hour))
	for _, tt := range []struct {
		name string
		c    Cursor
		want Range
		ok   bool
	}{
		{"from the start", Cursor{Index: -1}, Range{From: "", LedgerFrom: oldest, Upto: upto, Batch: 7}, true},
		{"after a recent record", Cursor{Record: recent}, Range{From: recent, LedgerFrom: recent, Upto: upto, Batch: 7, Served: 1}, true},
		{"after its third message", Cursor{Record: recent, Index: 2}, Range{From: recent, LedgerFrom: recent, Upto: upto, Batch: 7, Served: 3}, true},
		{"a cursor from a clock ahead", Cursor{Record: idAt(now)}, Range{}, false},
	} {
		got, ok := Window(tt.c, now, 7)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
	if !(oldest < recent && recent < upto) {
		t.Fatalf("ids out of time order: %s %s %s", oldest, recent, upto)
	}
}

// record is a record of n messages.
func record(id string, n int) Record {
	r := Record{ID: id, OrgID: "acme"}
	for i := range n {
		r.Messages = append(r.Messages, Message{ID: MessageID(id, i), Type: "recipient.created"})
	}
	return r
}

// TestPager: a page takes the messages after its cursor, comparing a
// message's index as a number (a record holds up to 500), stops at its
// limit with the cursor of the last message it took, and keeps the
// cursor given when it takes none.
func TestPager(t *testing.T) {
	t.Parallel()
	const a, b = "01KAQ0YH0000000000000000AA", "01KAQ0YH0000000000000000BB"
	big := record(a, 120)
	for _, tt := range []struct {
		name  string
		after string
		limit int
		recs  []Record
		want  []string // message ids
		next  string
		more  bool // room left after the last record
	}{
		{"from the start", "", 3, []Record{record(a, 2), record(b, 2)}, []string{a + ".00", a + ".01", b + ".00"}, b + ".00", false},
		{"inside a record", a + ".00", 5, []Record{record(a, 2), record(b, 1)}, []string{a + ".01", b + ".00"}, b + ".00", true},
		{"index 99 before index 100", a + ".99", 2, []Record{big}, []string{a + ".100", a + ".101"}, a + ".101", false},
		{"past the last message", b + ".00", 5, []Record{record(a, 2), record(b, 1)}, nil, b + ".00", true},
		{"a page filled by the record's end", "", 2, []Record{record(a, 2)}, []string{a + ".00", a + ".01"}, a + ".01", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ParseCursor(tt.after)
			if err != nil {
				t.Fatal(err)
			}
			p := newPager(tt.after, c, tt.limit)
			more := true
			for _, r := range tt.recs {
				if more = p.add(r); !more {
					break
				}
			}
			var got []string
			for _, m := range p.page.Messages {
				got = append(got, m.ID)
			}
			if !slices.Equal(got, tt.want) || p.page.Next != tt.next || more != tt.more {
				t.Errorf("page %v, next %q, more %v; want %v, %q, %v", got, p.page.Next, more, tt.want, tt.next, tt.more)
			}
			if p.page.Messages == nil {
				t.Error("an empty page's messages are nil; the feed answers items: []")
			}
		})
	}
}
