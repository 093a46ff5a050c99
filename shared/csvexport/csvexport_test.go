package csvexport

import (
	"encoding/csv"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSafe: every cell a spreadsheet would run as a formula is prefixed
// with a quote; other cells, and formula characters later in a cell, are
// left as they are.
func TestSafe(t *testing.T) {
	in := []string{"=HYPERLINK(\"http://x\")", "+1 555", "-2", "@SUM(A1)", "\tx", "\rx", "a=b", "", "plain"}
	want := []string{"'=HYPERLINK(\"http://x\")", "'+1 555", "'-2", "'@SUM(A1)", "'\tx", "'\rx", "a=b", "", "plain"}
	if got := Safe(slices.Clone(in)...); !slices.Equal(got, want) {
		t.Fatalf("Safe(%q) = %q, want %q", in, got, want)
	}
}

// TestPageBytes: a page stops before the row that would take it past its
// bound, keeps every row before it whole, and parses back as CSV.
func TestPageBytes(t *testing.T) {
	p := newPage([]string{"id", "text"}, 1000)
	row := strings.Repeat("x", 90)
	n := 0
	for p.Add(strings.Repeat("1", 5), row) {
		n++
	}
	if n == 0 || p.Rows() != n {
		t.Fatalf("rows %d, added %d", p.Rows(), n)
	}
	if EncodedLen(p.buf.Bytes()) > 1000 {
		t.Fatalf("page of %d encoded bytes passed its bound of 1000", EncodedLen(p.buf.Bytes()))
	}
	records, err := csv.NewReader(strings.NewReader(p.buf.String())).ReadAll()
	if err != nil || len(records) != n+1 || records[0][0] != "id" || records[n][1] != row {
		t.Fatalf("page parses as %d records (%v), want the header and %d rows", len(records), err, n)
	}
	// A first row larger than the bound is still written: a page always
	// moves the export on.
	big := newPage([]string{"a"}, 10)
	if !big.Add(strings.Repeat("y", 50)) || big.Add("z") {
		t.Fatal("the first row must be written and the next refused")
	}
}

// TestEncodedLen: the length counted is never less than what
// encoding/json writes for the body, for bodies of every kind of
// character the escaping treats apart.
func TestEncodedLen(t *testing.T) {
	alphabet := []rune("aZ0 ,\"\\\n\r\t\x01<>&é€\u2028\u2029😀'=")
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		js, _ := json.Marshal(b.String())
		if got, min := EncodedLen([]byte(b.String())), len(js)-2; got < min {
			t.Fatalf("EncodedLen(%q) = %d, json writes %d", b.String(), got, min)
		}
	}
}

// TestSend: the page goes out as text/csv with its file name and, when a
// page follows, the Link header naming it with the cursor escaped.
func TestSend(t *testing.T) {
	p := NewPage([]string{"h"})
	p.Add("v")
	rec := httptest.NewRecorder()
	p.Send(rec, "x.csv", NextURL("/api/x/export", url.Values{"limit": {"2"}}, "s/L#1/A B"))
	if ct := rec.Header().Get("Content-Type"); ct != ContentType {
		t.Fatalf("Content-Type %q", ct)
	}
	if l := rec.Header().Get("Link"); l != `</api/x/export?cursor=s%2FL%231%2FA+B&limit=2>; rel="next"` {
		t.Fatalf("Link %q", l)
	}
	if rec.Body.String() != "h\nv\n" {
		t.Fatalf("body %q", rec.Body.String())
	}
	last := httptest.NewRecorder()
	p.Send(last, "x.csv", "")
	if last.Header().Get("Link") != "" {
		t.Fatal("the last page must have no Link")
	}
}

// TestFillGoesOnFromTheLastRowWritten: pages cut by their size, each
// started from the cursor the page before returned, hold every row
// exactly once and in order; a page that holds all its rows goes on from
// the cursor after the last row read.
func TestFillGoesOnFromTheLastRowWritten(t *testing.T) {
	rows := make([]string, 50)
	cursors := make([]string, len(rows))
	for i := range rows {
		rows[i] = strings.Repeat(string(rune('a'+i%26)), 10+i%7)
		cursors[i] = "c" + strconv.Itoa(i)
	}
	var got []string
	from, pages := 0, 0
	for from < len(rows) {
		// A reader of up to 20 rows after the cursor; pages of 200 bytes
		// hold fewer.
		batch, next := rows[from:min(from+20, len(rows))], ""
		if from+20 < len(rows) {
			next = cursors[from+19]
		}
		p, cursor := Fill([]string{"v"}, 200, batch, cursors[from:], next, func(s string) []string { return []string{s} })
		recs, err := csv.NewReader(strings.NewReader(p.buf.String())).ReadAll()
		if err != nil || EncodedLen(p.buf.Bytes()) > 200 {
			t.Fatalf("page %d: %v, %d encoded bytes", pages, err, EncodedLen(p.buf.Bytes()))
		}
		for _, r := range recs[1:] {
			got = append(got, r[0])
		}
		pages++
		if cursor == "" {
			break
		}
		from, _ = strconv.Atoi(strings.TrimPrefix(cursor, "c"))
		from++
	}
	if !slices.Equal(got, rows) || pages <= len(rows)/20+1 {
		t.Fatalf("%d pages gave %d rows; want all %d once, in order, in more pages than the row limit makes", pages, len(got), len(rows))
	}
}
