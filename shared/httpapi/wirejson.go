package httpapi

import "github.com/giftcampaign/service/shared/wire"

// marshalWire is the JSON of a response body (wire.Marshal), ending in a
// newline as json.Encoder ends it. Every body the API sends, and every
// response it stores to replay, is made by it.
func marshalWire(v any) ([]byte, error) {
	b, err := wire.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
