package httpapi_test

import (
	"strconv"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestEnvelopeExamplesStateTheirOwnStatus holds every enveloped answer the document shows to the status
// it is shown under: a developer copies `statusCode` checks from the docs page, so an example of a 200
// that says 201 (the rotate-secret answer did, with the create answer's message) teaches a wrong check.
func TestEnvelopeExamplesStateTheirOwnStatus(t *testing.T) {
	t.Parallel()
	doc := testenv.Contract(t)
	checked := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, ref := range op.Responses.Map() {
				if ref.Value == nil {
					continue
				}
				for mediaType, content := range ref.Value.Content {
					examples := []any{content.Example}
					for _, ex := range content.Examples {
						if ex.Value != nil {
							examples = append(examples, ex.Value.Value)
						}
					}
					for _, ex := range examples {
						body, ok := ex.(map[string]any)
						if !ok {
							continue
						}
						code, ok := body["statusCode"].(float64)
						if !ok {
							continue
						}
						checked++
						if strconv.Itoa(int(code)) != status {
							t.Errorf("%s %s: the %s example of %s says statusCode %v (%v)", method, path, mediaType, status, code, body["message"])
						}
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d enveloped examples; the walk misses some", checked)
	}
}
