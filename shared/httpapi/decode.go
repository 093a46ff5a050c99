package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
)

// maxBody is the largest request body accepted: ample for a bulk add of 100
// contacts, small enough to bound the memory and time of one request.
const maxBody = 1 << 20

func asError(err error, target **gifting.Error) bool { return errors.As(err, target) }

// decode reads a JSON object from the request body into v. A body that is
// not declared application/json, anything but one object (null, an array,
// trailing data), unknown fields, wrong types, numbers DynamoDB cannot
// store, text that is not clean UTF-8, malformed ids and oversized bodies
// are client errors.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return decodeError(err)
	}
	if len(body) > 0 && !jsonMediaType(r.Header.Get("Content-Type")) {
		return gifting.Errorf(gifting.CodeUnsupportedMedia, "send the body with Content-Type: application/json")
	}
	body, err = checkJSON(body)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return exactKeys(body, v)
}

// jsonMediaType reports whether a Content-Type header declares JSON:
// application/json in any letter case, with no charset or UTF-8, the only
// encoding JSON has (RFC 8259).
func jsonMediaType(header string) bool {
	mt, params, err := mime.ParseMediaType(header)
	if err != nil || mt != "application/json" {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// A bad body costs a bounded answer: checkJSON reports at most maxProblems
// of its strings, names each field with at most maxFieldName bytes of each
// key, and refuses bodies nesting deeper than maxDepth (a persona's
// company, the deepest free-form value, may nest 8 levels). Without them a
// body's details grew with the square of its depth, and a 125 KB body of
// long bad keys was answered with 500 MB.
const (
	maxProblems  = 100
	maxFieldName = 64
	maxDepth     = 32
)

// DynamoDB stores numbers of magnitude 1e-130 to below 1e126 (and zero).
const (
	minMagnitude = 1e-130
	maxMagnitude = 1e126
)

// idFields are the body fields that name a resource of the service, alone
// or in an array. Their values must be ids (gifting.ValidID) or empty.
var idFields = map[string]bool{
	"campaignId": true, "campaignIds": true, "contactIds": true, "contactListId": true,
	"contactListIds": true, "emailTemplateId": true, "giftId": true, "giftIds": true,
	"icpId": true, "templateId": true,
}

// frame is one open object or array of the body, for naming fields.
type frame struct {
	object  bool
	key     string // the current key, in an object
	index   int    // the current index, in an array (-1 before the first)
	wantKey bool   // in an object: the next string is a key
}

// fieldPath names the value the innermost frame is at, the way validation
// details name fields: contacts[3].firstName.
func fieldPath(stack []frame) string {
	var b strings.Builder
	for _, f := range stack {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(gifting.Clip(f.key, maxFieldName))
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	return b.String()
}

// idField reports whether the value the innermost frame is at belongs to
// one of idFields: the field itself, or an element of its array.
func idField(stack []frame) bool {
	n := len(stack)
	switch {
	case n >= 1 && stack[n-1].object:
		return idFields[stack[n-1].key]
	case n >= 2 && stack[n-2].object:
		return idFields[stack[n-2].key]
	}
	return false
}

// checkJSON walks the tokens of body: it must be exactly one JSON object,
// every number in it must fit DynamoDB's number type, so no valid request
// can fail when it is stored, every string (keys too) must be clean text
// (see textProblem), and the id fields must hold ids. It returns the body
// with whole numbers written with a fraction or an exponent (2197.0, 1e3)
// rewritten as integers: JSON Schema's integer type accepts them, and Go's
// decoder would refuse them for an integer field.
func checkJSON(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	first, err := dec.Token()
	if err != nil {
		return nil, decodeError(err)
	}
	if d, ok := first.(json.Delim); !ok || d != '{' {
		return nil, gifting.Errorf(gifting.CodeMalformed, "the request body must be a JSON object")
	}
	w := jsonWalk{body: body, stack: []frame{{object: true, wantKey: true}}}
	for len(w.stack) > 0 {
		start := int(dec.InputOffset())
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			// The body ends inside the object: cut short, not empty.
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, decodeError(err)
		}
		if err := w.token(tok, start, int(dec.InputOffset())); err != nil {
			return nil, err
		}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, gifting.Errorf(gifting.CodeMalformed, "the request body must hold a single JSON object")
	}
	if err := w.problems.Err(); err != nil {
		return nil, err
	}
	if w.out == nil {
		return body, nil
	}
	return append(w.out, body[w.copied:]...), nil
}

// jsonWalk is checkJSON's state between tokens.
type jsonWalk struct {
	body     []byte
	out      []byte // the rewritten body, once a number needs it
	copied   int    // how much of body out holds
	problems gifting.Problems
	stack    []frame
}

// token takes the next token, tok, which spans body[start:end].
func (w *jsonWalk) token(tok json.Token, start, end int) error {
	top := &w.stack[len(w.stack)-1]
	if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
		w.stack = w.stack[:len(w.stack)-1]
		return nil
	}
	if s, ok := tok.(string); ok && top.object && top.wantKey {
		top.key, top.wantKey = s, false
		if p := textProblem(w.body[start:end]); p != "" && len(w.problems) < maxProblems {
			w.problems.Add(fieldPath(w.stack), "the field name "+p)
		}
		return nil
	}
	// A value: of the current key, or the next element.
	if top.object {
		top.wantKey = true
	} else {
		top.index++
	}
	switch t := tok.(type) {
	case json.Delim:
		if len(w.stack) >= maxDepth {
			return gifting.Errorf(gifting.CodeMalformed, "the request body nests deeper than %d levels", maxDepth)
		}
		w.stack = append(w.stack, frame{object: t == '{', wantKey: t == '{', index: -1})
	case string:
		if len(w.problems) >= maxProblems {
			break
		}
		if p := textProblem(w.body[start:end]); p != "" {
			w.problems.Add(fieldPath(w.stack), p)
		} else if t != "" && idField(w.stack) && !gifting.ValidID(t) {
			w.problems.Add(fieldPath(w.stack), idProblem)
		}
	case json.Number:
		f, err := t.Float64()
		if a := math.Abs(f); err != nil || a >= maxMagnitude || (a != 0 && a < minMagnitude) {
			return gifting.Errorf(gifting.CodeMalformed, "the number %s is out of range (magnitudes from 1e-130 to below 1e126)", gifting.Clip(string(t), 64))
		}
		if whole, ok := wholeNumber(string(t)); ok {
			// A number token ends where the decoder stands.
			w.out = append(append(w.out, w.body[w.copied:end-len(t)]...), whole...)
			w.copied = end
		}
	}
	return nil
}

// idProblem is the detail of an id field whose value cannot be an id.
var idProblem = "must be an id: 1 to " + strconv.Itoa(gifting.MaxIDLength) + " letters, digits, '-', '_', '.' or ':'"

// textProblem checks the raw JSON of one string token (with whatever
// separators precede it): encoding/json silently turns invalid UTF-8 and
// lone UTF-16 surrogates (\ud800) into U+FFFD, so they are refused here,
// on the bytes as sent, together with control characters other than tab,
// line feed and carriage return (\u0000, \b, \f…), which no text field
// of the service means to hold. Raw control bytes are already a JSON
// syntax error. It returns "" for clean text.
func textProblem(raw []byte) string {
	if !utf8.Valid(raw) {
		return "must be valid UTF-8 text"
	}
	const control = "must not contain control characters (only tab, line feed and carriage return are allowed)"
	const surrogate = "must not contain a lone UTF-16 surrogate (\\ud800 to \\udfff without its pair)"
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' || i+1 >= len(raw) {
			continue
		}
		switch raw[i+1] {
		case 'b', 'f':
			return control
		case 'u':
			v := hex4(raw[i+2:])
			switch {
			case v < 0x20 && v != '\t' && v != '\n' && v != '\r':
				return control
			case 0xDC00 <= v && v <= 0xDFFF:
				return surrogate
			case 0xD800 <= v && v <= 0xDBFF:
				if lo := hex4u(raw[i+6:]); lo < 0xDC00 || lo > 0xDFFF {
					return surrogate
				}
				i += 6 // the low half is checked already
			}
			i += 5
			continue
		}
		i++ // a two-character escape such as \\ or \"
	}
	return ""
}

// hex4 parses the four hex digits of a \u escape (the decoder has checked
// the syntax); -1 when b is too short.
func hex4(b []byte) int {
	if len(b) < 4 {
		return -1
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	if err != nil {
		return -1
	}
	return int(v)
}

// hex4u parses a following \uXXXX escape; -1 when b does not start with one.
func hex4u(b []byte) int {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	return hex4(b[2:])
}

// wholeNumber returns a number written with a fraction or an exponent as an
// integer, when its value is whole; ok is false for any other number.
func wholeNumber(lit string) (integer string, ok bool) {
	if !strings.ContainsAny(lit, ".eE") {
		return "", false
	}
	var r big.Rat
	if _, parsed := r.SetString(lit); !parsed || !r.IsInt() {
		return "", false
	}
	return r.Num().String(), true
}

func decodeError(err error) error {
	var (
		syntax   *json.SyntaxError
		typ      *json.UnmarshalTypeError
		tooLarge *http.MaxBytesError
		problems gifting.Problems
	)
	switch {
	case errors.Is(err, io.EOF):
		return gifting.Errorf(gifting.CodeMalformed, "the request body is empty; send a JSON object")
	case errors.As(err, &tooLarge):
		return gifting.Errorf(gifting.CodeTooLarge, "the request body is larger than %d bytes", maxBody)
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF):
		return gifting.Errorf(gifting.CodeMalformed, "the request body is not valid JSON: %v", err)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return gifting.Errorf(gifting.CodeMalformed, "the request body must be a JSON object")
		}
		problems.Add(field, fmt.Sprintf("must be %s, not %s", jsonKind(typ.Type.Kind().String()), typ.Value))
		return problems.Err()
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		problems.Add(gifting.Clip(field, maxFieldName), "is not a field of this request")
		return problems.Err()
	}
	return gifting.Errorf(gifting.CodeMalformed, "the request body could not be read: %v", err)
}

// jsonKind names a Go kind the way a JSON client thinks of it.
func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int64", "int32", "uint", "uint64", "float64", "float32":
		return "a number"
	}
	return "of another type"
}
