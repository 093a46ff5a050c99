package httpapi

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
)

// query parses query parameters, collecting every problem so one response
// can report them all.
type query struct {
	v        url.Values
	problems gifting.Problems
}

// newQuery parses r's query string. A malformed one (a bad %-escape, a
// ';' between parameters) is a problem of its own: url.Values would drop
// the pair silently, so ?limit=500;x would list with the default limit
// where ?limit=500 is refused.
func newQuery(r *http.Request) *query {
	v, err := url.ParseQuery(r.URL.RawQuery)
	q := &query{v: v}
	if err != nil {
		q.problems.Add("query", "is not a well-formed query string: "+gifting.Clip(err.Error(), 120))
	}
	return q
}

// str returns a trimmed parameter, "" when absent.
func (q *query) str(name string) string { return strings.TrimSpace(q.v.Get(name)) }

// maxSearch is the longest free-text search of the list endpoints, in
// characters: enough for any name or phrase, and it bounds the work of a
// search scan.
const maxSearch = 200

// search returns the trimmed free-text search parameter, recording a
// problem when it is longer than maxChars characters as sent. Characters,
// not bytes: the API document's maxLength counts them that way.
func (q *query) search(maxChars int) string {
	if utf8.RuneCountInString(q.v.Get("search")) > maxChars {
		q.problems.Add("search", "must be at most "+strconv.Itoa(maxChars)+" characters")
	}
	return q.str("search")
}

// typed returns a parameter that must have a value when present:
// `?limit=` is a mistake, not a request for the default. ok is false when
// the parameter is absent or blank (a problem is recorded for blank). The
// value is not trimmed: `limit=10%20` is no more an integer to the service
// than it is to the API document.
func (q *query) typed(name string) (value string, ok bool) {
	if !q.v.Has(name) {
		return "", false
	}
	value = q.v.Get(name)
	if strings.TrimSpace(value) == "" {
		q.problems.Add(name, "must not be empty; leave the parameter out to use its default")
		return "", false
	}
	return value, true
}

// filter returns a trimmed text filter (an id, a category), "" when
// absent. Present, it must have a value: `?userId=` from a variable left
// unset would otherwise answer as if no filter had been asked for.
func (q *query) filter(name string) string {
	s, _ := q.typed(name)
	return strings.TrimSpace(s)
}

// integer parses an integer parameter within [lo, hi], def when absent.
func (q *query) integer(name string, def, lo, hi int) int {
	s, ok := q.typed(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		q.problems.Add(name, "must be a whole number")
	case n < lo:
		q.problems.Add(name, "must be at least "+strconv.Itoa(lo))
	case n > hi:
		q.problems.Add(name, "must be at most "+strconv.Itoa(hi))
	default:
		return n
	}
	return def
}

// page parses page (≥ 1, default 1) and limit (1..100, default defLimit).
func (q *query) page(defLimit int) gifting.PageRequest {
	return gifting.PageRequest{
		Page:  q.integer("page", 1, 1, 1_000_000),
		Limit: q.integer("limit", defLimit, 1, gifting.MaxLimit),
	}
}

// enum returns a parameter that must be one of allowed, def when absent.
func (q *query) enum(name, def string, allowed ...string) string {
	s, ok := q.typed(name)
	if !ok {
		return def
	}
	if !slices.Contains(allowed, s) {
		q.problems.Add(name, "must be one of "+strings.Join(allowed, ", "))
		return def
	}
	return s
}

// enums parses a comma-separated list whose entries must be in allowed.
func (q *query) enums(name string, allowed ...string) []string {
	s, ok := q.typed(name)
	if !ok {
		return nil
	}
	var out []string
	for i, part := range strings.Split(s, ",") {
		if i > 0 {
			// "a, b" is a list of two, as the document's patterns allow.
			part = strings.TrimLeft(part, " ")
		}
		if !slices.Contains(allowed, part) {
			q.problems.Add(name, "entries must be among "+strings.Join(allowed, ", "))
			return nil
		}
		if !slices.Contains(out, part) {
			out = append(out, part)
		}
	}
	return out
}

// boolean parses true/false; nil when absent.
func (q *query) boolean(name string) *bool {
	s, ok := q.typed(name)
	if !ok {
		return nil
	}
	switch s {
	case "true":
		b := true
		return &b
	case "false":
		b := false
		return &b
	}
	q.problems.Add(name, "must be true or false")
	return nil
}

// timestamp parses an ISO 8601 date-time (RFC 3339) or a date
// (YYYY-MM-DD, midnight UTC); nil when absent.
func (q *query) timestamp(name string) *time.Time {
	s, ok := q.typed(name)
	if !ok {
		return nil
	}
	if t, ok := parseInstant(s); ok {
		return &t
	}
	msg := "must be an ISO 8601 date-time such as 2026-01-31T09:00:00Z, or a date such as 2026-01-31"
	if _, ok := parseInstant(strings.Replace(s, " ", "+", 1)); ok {
		// A "+" left unencoded in a query string arrives as a space.
		msg += "; a time zone offset's + must be sent encoded, as %2B (2026-01-31T09:00:00%2B01:00)"
	}
	q.problems.Add(name, msg)
	return nil
}

// instantShape is the shape of the API document's date (YYYY-MM-DD) and
// date-time (RFC 3339: two-digit fields, T and Z in upper case).
// time.Parse alone is laxer: it takes a one-digit hour ("T9:00:00Z").
var instantShape = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2}))?$`)

// parseInstant reads an RFC 3339 date-time, or a date (midnight UTC), in
// UTC; false for anything else, a one-digit field or an impossible date
// among them.
func parseInstant(s string) (time.Time, bool) {
	if !instantShape.MatchString(s) {
		return time.Time{}, false
	}
	layout := time.RFC3339Nano
	if len(s) == len("2006-01-02") {
		layout = "2006-01-02"
	}
	t, err := time.Parse(layout, s)
	return t.UTC(), err == nil
}

// sortOrder parses sortOrder (asc, desc), def when absent.
func (q *query) sortOrder(def gifting.SortOrder) gifting.SortOrder {
	return gifting.SortOrder(q.enum("sortOrder", string(def), "asc", "desc"))
}

// err returns the collected problems as one VALIDATION_FAILED error.
func (q *query) err() error { return q.problems.Err() }
