package gifting

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// Cursors: the one encoding of every list's cursor/nextCursor (docs/api.md,
// "Paging"). A cursor is the position of a page's last item, as the store
// keys it (an id, or the index key the list's order follows), bound to what
// the page was asked for: the organization, the list (its resource and the
// ids in its path) and every parameter that changes which items it holds or
// their order (filters, sort, sortOrder), but not page or limit. The
// encoding is base64url (no padding) of a 9-byte check, a dot, and the
// position; the check is the first 9 bytes of SHA-256 over the binding and
// the position. So a cursor made for another organization, another list or
// other filters, and a cursor cut or altered by hand, are told apart from
// a good one (ResumeAt fails) instead of silently starting elsewhere. The
// check is no secret: someone who forges one still only positions a page
// within their own organization's list, whose keys the store builds from
// the caller's organization, never from the cursor.

// cursorCheck is the length of a cursor's check, in bytes.
const cursorCheck = 9

// maxCursor bounds a cursor as sent: positions are keys (≤ 1 KB each).
const maxCursor = 3000

// Resume is a list page's cursor paging: After is where the page starts
// (the position a cursor holds; "" when no cursor was sent, the page is
// found by its number), and the store sets Next to the position of the
// page's last item when an item follows it ("" on the last page, and in an
// order no key follows: a free-text search, a sort made in memory). It
// travels in PageRequest as a pointer, so the store's answer reaches the
// handler through the domain layers, which pass the request on as it is.
type Resume struct {
	After string
	Next  string
}

// Cursor reports whether the page was asked for by a cursor.
func (r *Resume) Cursor() bool { return r != nil && r.After != "" }

// SetNext records the position of the page's last item when an item
// follows it; a page read by number without a Resume keeps none.
func (r *Resume) SetNext(position string) {
	if r != nil {
		r.Next = position
	}
}

// Binding is what a cursor is bound to: the organization, the list and the
// parameters that decide its items and order, each part kept apart (a part
// holding the separator cannot make two bindings alike).
func Binding(parts ...string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(strings.ReplaceAll(p, "\x00", "\x00\x01"))
		b.WriteString("\x00\x00")
	}
	return b.String()
}

// CursorAt is the cursor of position under binding ("" for no position:
// the last page).
func CursorAt(position, binding string) string {
	if position == "" {
		return ""
	}
	raw := append(cursorSum(position, binding), '.')
	return base64.RawURLEncoding.EncodeToString(append(raw, position...))
}

// ResumeAt returns the position cursor holds, when it was made by CursorAt
// under binding; false for a malformed cursor, or one made for another
// organization, list or parameters.
func ResumeAt(cursor, binding string) (string, bool) {
	if len(cursor) > maxCursor {
		return "", false
	}
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(raw) < cursorCheck+2 || raw[cursorCheck] != '.' {
		return "", false
	}
	position := string(raw[cursorCheck+1:])
	if !bytes.Equal(raw[:cursorCheck], cursorSum(position, binding)) {
		return "", false
	}
	return position, true
}

// cursorSum is a cursor's check.
func cursorSum(position, binding string) []byte {
	sum := sha256.Sum256([]byte(binding + "\x00\x00\x00" + position))
	return sum[:cursorCheck]
}
