// Package wire is how the service's values leave it as JSON: API response
// bodies and webhook messages (with the change feed, which returns the same
// messages) are encoded by it, so a timestamp reads the same everywhere.
package wire

import (
	"time"

	json "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// TimeLayout is how every timestamp leaves the service: RFC 3339 in UTC
// with exactly three fractional digits, as the OpenAPI document's DateTime
// says. encoding/json would send time.Time as RFC3339Nano, which drops
// trailing zeros (`…09:02:00Z`, `…00.46Z`), and a client parsing a fixed
// format would then fail on some values and not others.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// options encode exactly as encoding/json does (its v1 semantics: field
// names, omitempty, HTML escaping, nil slices as null), except for
// timestamps, which take TimeLayout.
var options = json.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	json.WithMarshalers(json.MarshalFunc(func(t time.Time) ([]byte, error) {
		return []byte(`"` + t.UTC().Format(TimeLayout) + `"`), nil
	})),
)

// Marshal is the JSON of v as the service sends it.
func Marshal(v any) ([]byte, error) { return json.Marshal(v, options) }
