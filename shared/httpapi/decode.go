package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// maxBody is the largest request body accepted: ample for a bulk add of 100
// contacts, small enough to bound the memory and time of one request.
const maxBody = 1 << 20

func asError(err error, target **gifting.Error) bool { return errors.As(err, target) }

// decode reads a JSON object from the request body into v. Anything but
// one object (null, an array, trailing data), unknown fields, wrong types,
// numbers DynamoDB cannot store and oversized bodies are client errors.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		return decodeError(err)
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

// DynamoDB stores numbers of magnitude 1e-130 to below 1e126 (and zero).
const (
	minMagnitude = 1e-130
	maxMagnitude = 1e126
)

// checkJSON walks the tokens of body: it must be exactly one JSON object,
// and every number in it must fit DynamoDB's number type, so no valid
// request can fail when it is stored. It returns the body with whole
// numbers written with a fraction or an exponent (2197.0, 1e3) rewritten as
// integers: JSON Schema's integer type accepts them, and Go's decoder would
// refuse them for an integer field.
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
	var out []byte // the rewritten body, once a number needs it
	copied := 0    // how much of body out holds
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return nil, decodeError(err)
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				depth++
			} else {
				depth--
			}
		case json.Number:
			f, err := t.Float64()
			if a := math.Abs(f); err != nil || a >= maxMagnitude || (a != 0 && a < minMagnitude) {
				return nil, gifting.Errorf(gifting.CodeMalformed, "the number %s is out of range (magnitudes from 1e-130 to below 1e126)", t)
			}
			if whole, ok := wholeNumber(string(t)); ok {
				// A number token ends where the decoder stands.
				end := int(dec.InputOffset())
				out = append(append(out, body[copied:end-len(t)]...), whole...)
				copied = end
			}
		}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, gifting.Errorf(gifting.CodeMalformed, "the request body must hold a single JSON object")
	}
	if out == nil {
		return body, nil
	}
	return append(out, body[copied:]...), nil
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
		problems.Add(field, "is not a field of this request")
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
