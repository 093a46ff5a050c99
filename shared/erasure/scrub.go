// Package erasure is the erasure of a person on request (GDPR art. 17,
// CCPA): every personal field the service stored about one contact is
// removed or replaced by a fixed value that tells nothing of it, wherever
// it was copied (docs/erasure.md lists where). The rules, what is replaced
// by what, are here; storage (shared/dynamo) finds the items and writes
// what these rules return.
package erasure

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"slices"
	"strings"
)

// The replacements. An email address becomes ErasedEmail, a valid address
// of the reserved .invalid domain (RFC 2606), so every field that must
// hold an address still does and no mail can reach anyone; any other
// personal text becomes Erased.
const (
	Erased      = "erased"
	ErasedEmail = "erased@erased.invalid"
)

// minSubstring is the shortest personal value replaced where it occurs
// inside a longer text; a shorter one (a two-letter state or first name)
// is replaced only where it is the whole value, so that erasing "Al" does
// not rewrite every "also" of a change record.
const minSubstring = 3

// Person is what identifies the person in stored text: their email
// addresses and the other personal values (names, phone, address lines,
// profile links, feedback text) found on the contact and its recipients
// before anything is erased. The job keeps it while it runs and drops it
// when done.
type Person struct {
	Emails []string `json:"emails"`
	Texts  []string `json:"texts"`
	// IDs are the contact's id and its recipients' ids: a text that holds
	// one is about the person.
	IDs []string `json:"ids"`
}

// Add records personal values; emails are told apart by their '@'.
func (p *Person) Add(values ...string) {
	for _, v := range values {
		v = strings.ToLower(strings.TrimSpace(v))
		if v == "" || v == Erased || v == ErasedEmail {
			continue
		}
		if strings.Contains(v, "@") {
			if !slices.Contains(p.Emails, v) {
				p.Emails = append(p.Emails, v)
			}
		} else if !slices.Contains(p.Texts, v) {
			p.Texts = append(p.Texts, v)
		}
	}
}

// Scrubber replaces a person's values in stored text. An address is the
// person's wherever it is; a name, a street or a city may be someone
// else's too, so those are replaced only in a text about the person (one
// that holds their address or one of their ids), and in a list only in
// the elements about them (a change record of a launch holds the
// messages of hundreds of recipients; a stored reply, of a hundred
// contacts): For gives the scrubber of one text.
type Scrubber struct {
	whole map[string]string
	inner *regexp.Regexp
	// anchors are the person's emails and ids, lower-cased.
	anchors []string
	// strong is the scrubber of the person's addresses only, for texts
	// not about them; nil when s is that one.
	strong *Scrubber
}

// NewScrubber returns the scrubber of p's values, for texts about p.
func NewScrubber(p Person) *Scrubber {
	s := newScrubber(append(slices.Clone(p.Emails), p.Texts...))
	s.strong = newScrubber(p.Emails)
	s.anchors = slices.Clone(p.Emails)
	for _, id := range p.IDs {
		if id != "" {
			s.anchors = append(s.anchors, strings.ToLower(id))
		}
	}
	s.strong.anchors = s.anchors
	return s
}

// About reports whether any of texts is about the person.
func (s *Scrubber) About(texts ...string) bool {
	for _, t := range texts {
		t = strings.ToLower(t)
		for _, a := range s.anchors {
			if strings.Contains(t, a) {
				return true
			}
		}
	}
	return false
}

// For is the scrubber of a text made of texts: s when it is about the
// person, else the one that replaces their addresses only.
func (s *Scrubber) For(texts ...string) *Scrubber {
	if s.strong == nil || s.About(texts...) {
		return s
	}
	return s.strong
}

func newScrubber(values []string) *Scrubber {
	s := &Scrubber{whole: map[string]string{}}
	var inner []string
	for _, v := range values {
		s.whole[v] = replacement(v)
		if len(v) >= minSubstring {
			inner = append(inner, v)
			// An email's HTML (a sandbox's captured emails) holds the
			// value as html/template wrote it: "o'brien" as "o&#39;brien".
			if e := html.EscapeString(v); e != v {
				inner = append(inner, e)
			}
		}
	}
	// Longest first: the regexp takes the first alternative that matches,
	// so an address is replaced whole before the name inside it.
	slices.SortFunc(inner, func(a, b string) int { return len(b) - len(a) })
	if len(inner) > 0 {
		quoted := make([]string, len(inner))
		for i, v := range inner {
			quoted[i] = bounded(v)
		}
		s.inner = regexp.MustCompile(`(?i)(?:` + strings.Join(quoted, "|") + `)`)
	}
	return s
}

// bounded is the pattern of v inside a text: where v starts or ends with
// a letter or digit, a word boundary must be there too, so that a name
// never matches inside an id ("ANN" in a ULID) or a longer word.
func bounded(v string) string {
	p := regexp.QuoteMeta(v)
	if isWordByte(v[0]) {
		p = `\b` + p
	}
	if isWordByte(v[len(v)-1]) {
		p += `\b`
	}
	return p
}

func isWordByte(b byte) bool {
	return b == '_' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// replacement is what replaces a personal value v.
func replacement(v string) string {
	if strings.Contains(v, "@") {
		return ErasedEmail
	}
	return Erased
}

// String returns s with the person's values replaced, and whether any was.
// A text holding JSON is scrubbed value by value, so that a value written
// with escapes is found too and the JSON stays valid.
func (s *Scrubber) String(v string) (string, bool) {
	if out, changed, ok := s.jsonText(v); ok {
		return out, changed
	}
	if r, ok := s.whole[strings.ToLower(strings.TrimSpace(v))]; ok {
		return r, true
	}
	if s.inner == nil || !s.inner.MatchString(v) {
		return v, false
	}
	return s.inner.ReplaceAllStringFunc(v, replacement), true
}

// jsonText scrubs v when it is a JSON object or array; ok is false when it
// is not.
func (s *Scrubber) jsonText(v string) (out string, changed, ok bool) {
	t := strings.TrimSpace(v)
	if t == "" || (t[0] != '{' && t[0] != '[') || !json.Valid([]byte(t)) {
		return "", false, false
	}
	b, changed, err := s.JSON([]byte(t))
	if err != nil {
		return "", false, false
	}
	return string(b), changed, true
}

// JSON scrubs every string of a JSON document (numbers are kept exactly).
func (s *Scrubber) JSON(doc []byte) ([]byte, bool, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false, err
	}
	v, changed := s.Value(v)
	if !changed {
		return doc, false, nil
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, false, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), true, nil
}

// Value scrubs a decoded value: strings, and the strings of maps and
// lists, at any depth (map keys too: a key may be an address).
func (s *Scrubber) Value(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		return s.String(t)
	case []any:
		// A list whose elements are about several subjects (messages of
		// a launch, results of a bulk add) is scrubbed in full only in
		// the elements about the person; a list of none of them (a
		// contact's tags) is part of the text around it.
		each := make([]*Scrubber, len(t))
		mixed := false
		for i, e := range t {
			each[i] = s.For(textOf(e))
			mixed = mixed || each[i] == s
		}
		changed := false
		for i, e := range t {
			sc := s
			if mixed {
				sc = each[i]
			}
			var c bool
			t[i], c = sc.Value(e)
			changed = changed || c
		}
		return t, changed
	case map[string]any:
		changed := false
		out := make(map[string]any, len(t))
		for k, e := range t {
			nk, ck := s.String(k)
			ne, ce := s.Value(e)
			out[nk] = ne
			changed = changed || ck || ce
		}
		return out, changed
	}
	return v, false
}

// textOf is every string of a decoded value, for About.
func textOf(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = textOf(e)
		}
		return strings.Join(parts, "\n")
	case map[string]any:
		parts := make([]string, 0, 2*len(t))
		for k, e := range t {
			parts = append(parts, k, textOf(e))
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
