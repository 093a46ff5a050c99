// Package csvexport writes the service's CSV exports (docs/api.md, "CSV
// exports"): the orders for a warehouse, a list's contacts, a campaign's
// recipients and the wallet's ledger. Every export answers text/csv in
// pages, each with a header row, the next page's URL in a Link header, and
// its cells neutralised against spreadsheet formulas.
package csvexport

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
)

// ContentType is every export's media type.
const ContentType = "text/csv; charset=utf-8"

// MaxRows is the most rows of an export page. A page's rows are read from
// storage before they are written, so this bounds the reads of a request.
const MaxRows = 1000

// MaxBytes bounds a page's body as Lambda returns it: the function's
// response is a JSON document holding the body as a string, which Lambda
// refuses past 6 MB. A page stops before its rows take it past MaxBytes of
// that encoding (EncodedLen), leaving room for the headers.
const MaxBytes = 3 << 20

// Safe neutralises spreadsheet formulas, as OWASP's CSV injection guidance
// says: a cell starting with =, +, -, @, a tab or a carriage return is
// prefixed with a single quote, so a spreadsheet shows it as text instead
// of running it (a recipient typed the address; a name such as
// =HYPERLINK(…) must not run on the computer of whoever opens the file).
// encoding/csv then quotes any cell that needs it. Safe changes cells in
// place and returns them.
func Safe(cells ...string) []string {
	for i, c := range cells {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			cells[i] = "'" + c
		}
	}
	return cells
}

// Header sets an export page's response headers: its media type, a file
// name for a browser's download, and when next is not "" the URL of the
// next page as a Link header (RFC 8288).
func Header(w http.ResponseWriter, filename, next string) {
	if next != "" {
		w.Header().Set("Link", "<"+next+`>; rel="next"`)
	}
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("Content-Disposition", `attachment; filename="`+filename+`"`)
}

// NextURL is the URL of the page that follows: path with the query v and
// cursor, escaped as a query must be.
func NextURL(path string, v url.Values, cursor string) string {
	v.Set("cursor", cursor)
	return path + "?" + v.Encode()
}

// Page is an export page being written: a header row, then rows while
// they fit in its bounds.
type Page struct {
	buf      bytes.Buffer
	w        *csv.Writer
	rows     int
	encoded  int
	maxBytes int
}

// NewPage starts a page with the header row.
func NewPage(header []string) *Page { return newPage(header, MaxBytes) }

func newPage(header []string, maxBytes int) *Page {
	p := &Page{maxBytes: maxBytes}
	p.w = csv.NewWriter(&p.buf)
	p.add(header)
	return p
}

// Add writes a row of cells (neutralised by Safe), unless it would take
// the page past MaxBytes: then it writes nothing and returns false, and
// the page ends before that row. A page's first row is always written (a
// row is far below the bound: the API bounds every field).
func (p *Page) Add(cells ...string) bool {
	before, enc := p.buf.Len(), p.encoded
	p.add(Safe(cells...))
	if p.rows > 0 && p.encoded > p.maxBytes {
		p.buf.Truncate(before)
		p.encoded = enc
		return false
	}
	p.rows++
	return true
}

func (p *Page) add(cells []string) {
	before := p.buf.Len()
	_ = p.w.Write(cells) // a bytes.Buffer does not fail
	p.w.Flush()
	p.encoded += EncodedLen(p.buf.Bytes()[before:])
}

// Fill writes rows into a page with header while they fit in maxBytes
// (MaxBytes for a response) and returns it with the cursor its Link goes
// on from: cursors[i] starts right after rows[i], and next after the last
// row read ("" when none follows). A page that stops early goes on from
// its last row, so no row is skipped or written twice.
func Fill[T any](header []string, maxBytes int, rows []T, cursors []string, next string, row func(T) []string) (*Page, string) {
	p := newPage(header, maxBytes)
	for i, v := range rows {
		if !p.Add(row(v)...) {
			return p, cursors[i-1]
		}
	}
	return p, next
}

// Rows is how many rows the page holds, its header not counted.
func (p *Page) Rows() int { return p.rows }

// Send writes the page as the response, status 200, with Header's headers.
func (p *Page) Send(w http.ResponseWriter, filename, next string) {
	Header(w, filename, next)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(p.buf.Bytes()) // the status is sent: a write error is a broken connection
}

// EncodedLen is at least the length of b once encoding/json writes it as a
// string, as the Lambda response carries a body: a quote, backslash or
// line break takes 2 bytes; another control character or <, > and & take
// 6 (\u003c); a byte of a multi-byte character is counted twice, as
// U+2028 and U+2029 take 6 bytes for 3 (a body that is not UTF-8 goes as
// base64 instead, a third longer).
func EncodedLen(b []byte) int {
	n := 0
	for _, c := range b {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 6
		case c >= 0x80:
			n += 2
		default:
			n++
		}
	}
	return n
}
