package httpapi

import (
	"time"

	json "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// wireTimeLayout is how every timestamp leaves the service: RFC 3339 in
// UTC with exactly three fractional digits, as the OpenAPI document's
// DateTime says. encoding/json would send time.Time as RFC3339Nano, which
// drops trailing zeros (`…09:02:00Z`, `…00.46Z`), and a client parsing a
// fixed format would then fail on some values and not others.
const wireTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// wireOptions encode exactly as encoding/json does (its v1 semantics:
// field names, omitempty, HTML escaping, nil slices as null), except for
// timestamps, which take wireTimeLayout.
var wireOptions = json.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	json.WithMarshalers(json.MarshalFunc(func(t time.Time) ([]byte, error) {
		return []byte(`"` + t.UTC().Format(wireTimeLayout) + `"`), nil
	})),
)

// marshalWire is the JSON of a response body, ending in a newline as
// json.Encoder ends it. Every body the API sends, and every response it
// stores to replay, is made by it.
func marshalWire(v any) ([]byte, error) {
	b, err := json.Marshal(v, wireOptions)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
