package httpapi_test

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/giftcampaign/service/shared/testenv"
)

// docExample is one example written in the API document, with the schema
// it illustrates.
type docExample struct {
	where  string
	value  any
	schema *openapi3.Schema
	// response says the example is an answer (readOnly fields allowed,
	// writeOnly ones not); otherwise it is a request.
	response bool
}

// TestOpenAPIExamplesMatchTheirSchemas validates every example an
// integrator reads in the document (schema example and 3.1 examples,
// media-type example and examples, parameter and header examples) against
// its own schema under JSON Schema 2020-12 rules, and refuses an example
// object key its schema does not declare: a copied example with a field the
// server rejects (or a misspelt field name) fails the integrator's first
// call. The document's own Validate checks examples with 3.0 rules only and
// skips the 3.1 `examples` keyword.
func TestOpenAPIExamplesMatchTheirSchemas(t *testing.T) {
	t.Parallel()
	doc := testenv.Contract(t)
	examples := collectExamples(doc)
	if len(examples) < 100 {
		t.Fatalf("found %d examples in the document; the walk misses some", len(examples))
	}
	for _, ex := range examples {
		opts := []openapi3.SchemaValidationOption{openapi3.MultiErrors(), openapi3.EnableJSONSchema2020()}
		if ex.response {
			opts = append(opts, openapi3.VisitAsResponse())
		} else {
			opts = append(opts, openapi3.VisitAsRequest())
		}
		if err := ex.schema.VisitJSON(ex.value, opts...); err != nil {
			t.Errorf("%s: example does not match its schema: %v", ex.where, err)
		}
		for _, p := range undeclaredKeys(ex.schema, ex.value, "") {
			t.Errorf("%s: example has %s, which its schema does not declare", ex.where, p)
		}
	}
}

// undeclaredKeys lists the object keys of v (as paths) that schema s does
// not declare as properties, where s declares properties and no
// additionalProperties schema. Composite schemas are followed through the
// branch whose properties hold the keys.
func undeclaredKeys(s *openapi3.Schema, v any, path string) []string {
	if s == nil {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		props := declaredProperties(s)
		open := hasAdditionalProperties(s)
		var out []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			p := path + "." + k
			sub, ok := props[k]
			if !ok {
				if !open && len(props) > 0 {
					out = append(out, strings.TrimPrefix(p, "."))
				}
				continue
			}
			out = append(out, undeclaredKeys(sub, v[k], p)...)
		}
		return out
	case []any:
		items := s.Items
		if items == nil {
			for _, b := range branches(s) {
				if b.Items != nil {
					items = b.Items
					break
				}
			}
		}
		if items == nil {
			return nil
		}
		var out []string
		for i, it := range v {
			out = append(out, undeclaredKeys(items.Value, it, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	return nil
}

func branches(s *openapi3.Schema) []*openapi3.Schema {
	var out []*openapi3.Schema
	for _, list := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
		for _, r := range list {
			if r != nil && r.Value != nil {
				out = append(out, r.Value)
			}
		}
	}
	return out
}

func declaredProperties(s *openapi3.Schema) map[string]*openapi3.Schema {
	out := map[string]*openapi3.Schema{}
	for k, r := range s.Properties {
		out[k] = r.Value
	}
	for _, b := range branches(s) {
		maps.Copy(out, declaredProperties(b))
	}
	return out
}

func hasAdditionalProperties(s *openapi3.Schema) bool {
	if s.AdditionalProperties.Schema != nil {
		return true
	}
	if h := s.AdditionalProperties.Has; h != nil && *h {
		return true
	}
	for _, b := range branches(s) {
		if hasAdditionalProperties(b) {
			return true
		}
	}
	return false
}

// collectExamples walks the whole document, components and operations.
func collectExamples(doc *openapi3.T) []docExample {
	w := &exampleWalker{seen: map[*openapi3.Schema]bool{}}
	c := doc.Components
	for _, name := range slices.Sorted(maps.Keys(c.Schemas)) {
		w.schema("components.schemas."+name, c.Schemas[name], true)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Parameters)) {
		w.parameter("components.parameters."+name, c.Parameters[name])
	}
	for _, name := range slices.Sorted(maps.Keys(c.Responses)) {
		w.response("components.responses."+name, c.Responses[name])
	}
	for _, name := range slices.Sorted(maps.Keys(c.RequestBodies)) {
		w.content("components.requestBodies."+name, c.RequestBodies[name].Value.Content, false)
	}
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for _, p := range item.Parameters {
			w.parameter(path, p)
		}
		for method, op := range item.Operations() {
			where := method + " " + path
			for _, p := range op.Parameters {
				w.parameter(where, p)
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				w.content(where+" request", op.RequestBody.Value.Content, false)
			}
			for status, r := range op.Responses.Map() {
				w.response(where+" "+status, r)
			}
		}
	}
	return w.out
}

type exampleWalker struct {
	out  []docExample
	seen map[*openapi3.Schema]bool
}

func (w *exampleWalker) add(where string, v any, s *openapi3.Schema, response bool) {
	w.out = append(w.out, docExample{where: where, value: v, schema: s, response: response})
}

// schema records a schema's own examples and those of every schema inside
// it, once per schema. A component schema's example is checked as an
// answer, the common case; readOnly and writeOnly are not used in the
// document's components.
func (w *exampleWalker) schema(where string, r *openapi3.SchemaRef, response bool) {
	if r == nil || r.Value == nil || w.seen[r.Value] {
		return
	}
	s := r.Value
	w.seen[s] = true
	if s.Example != nil {
		w.add(where+" example", s.Example, s, response)
	}
	for i, ex := range s.Examples {
		w.add(fmt.Sprintf("%s examples[%d]", where, i), ex, s, response)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		w.schema(where+"."+k, s.Properties[k], response)
	}
	w.schema(where+"[]", s.Items, response)
	w.schema(where+"{}", s.AdditionalProperties.Schema, response)
	for i, list := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
		for j, b := range list {
			w.schema(fmt.Sprintf("%s/%s[%d]", where, [...]string{"allOf", "anyOf", "oneOf"}[i], j), b, response)
		}
	}
}

func (w *exampleWalker) parameter(where string, r *openapi3.ParameterRef) {
	if r == nil || r.Value == nil {
		return
	}
	p := r.Value
	where += " parameter " + p.Name
	if p.Schema == nil || p.Schema.Value == nil {
		return
	}
	if p.Example != nil {
		w.add(where+" example", p.Example, p.Schema.Value, false)
	}
	for name, ex := range p.Examples {
		if ex.Value != nil {
			w.add(where+" examples."+name, ex.Value.Value, p.Schema.Value, false)
		}
	}
	w.schema(where, p.Schema, false)
}

func (w *exampleWalker) response(where string, r *openapi3.ResponseRef) {
	if r == nil || r.Value == nil {
		return
	}
	for name, h := range r.Value.Headers {
		if h.Value == nil || h.Value.Schema == nil || h.Value.Schema.Value == nil {
			continue
		}
		hw := where + " header " + name
		if h.Value.Example != nil {
			w.add(hw+" example", h.Value.Example, h.Value.Schema.Value, true)
		}
		for n, ex := range h.Value.Examples {
			if ex.Value != nil {
				w.add(hw+" examples."+n, ex.Value.Value, h.Value.Schema.Value, true)
			}
		}
		w.schema(hw, h.Value.Schema, true)
	}
	w.content(where, r.Value.Content, true)
}

func (w *exampleWalker) content(where string, content openapi3.Content, response bool) {
	for _, ct := range slices.Sorted(maps.Keys(content)) {
		mt := content[ct]
		if mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		mw := where + " " + ct
		if mt.Example != nil {
			w.add(mw+" example", mt.Example, mt.Schema.Value, response)
		}
		for _, name := range slices.Sorted(maps.Keys(mt.Examples)) {
			if ex := mt.Examples[name]; ex.Value != nil {
				w.add(mw+" examples."+name, ex.Value.Value, mt.Schema.Value, response)
			}
		}
		w.schema(mw, mt.Schema, response)
	}
}

// TestOpenAPIRateLimitedOperationsAreTheLimitedOnes holds the document's
// 429 RATE_LIMITED to the operations that have a per-organization budget:
// those answer every request (here one that names nothing, a 404 or 400
// after the budget is counted) with RateLimit-Policy, and only those may
// document a 429; their successes declare the RateLimit headers. A 429 documented elsewhere tells an integrator to build
// backoff, and a generated client a response type, for an answer that
// never comes.
func TestOpenAPIRateLimitedOperationsAreTheLimitedOnes(t *testing.T) {
	t.Parallel()
	doc := testenv.Contract(t)
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "ratedocs", 1000)
	api := testenv.NewAPI(t, s, key)
	param := regexp.MustCompile(`\{[^}]+\}`)
	for _, path := range doc.Paths.InMatchingOrder() {
		if !strings.HasPrefix(path, "/api/campaigns") {
			continue // the recipient pages are public and not limited
		}
		for method, op := range doc.Paths.Value(path).Operations() {
			if op.Security != nil && len(*op.Security) == 0 {
				continue // public: no organization to count against
			}
			t.Run(method+" "+path, func(t *testing.T) {
				res := api.Do(method, param.ReplaceAllString(path, "nothing-here"), nil)
				limited := res.Header.Get("RateLimit-Policy") != ""
				documented := op.Responses.Status(http.StatusTooManyRequests) != nil
				if _, own := op.Extensions["x-rate-limit-per-resource"]; own && !limited {
					return // a 429 of a resource's own bounds (a recipient's resends), not the organization's budget
				}
				if documented && !limited {
					t.Errorf("429 is documented, but the answer (%d) carries no RateLimit-Policy: the operation has no budget", res.Status)
				}
				if limited && !documented {
					t.Errorf("the answer carries RateLimit-Policy %q, but 429 is not documented", res.Header.Get("RateLimit-Policy"))
				}
				if !limited {
					return
				}
				// Every answer carries the budget, successes included.
				for status, r := range op.Responses.Map() {
					if !strings.HasPrefix(status, "2") {
						continue
					}
					for _, h := range []string{"RateLimit-Policy", "RateLimit"} {
						if r.Value.Headers[h] == nil {
							t.Errorf("response %s does not declare %s, which every answer of the operation carries", status, h)
						}
					}
				}
			})
		}
	}
}

// TestOpenAPIDocumentsTheReplayHeader replays each operation that takes an
// Idempotency-Key and checks that the answer's Idempotent-Replayed header,
// by which a client tells a replay from a first success, is declared on the
// documented response of that status.
func TestOpenAPIDocumentsTheReplayHeader(t *testing.T) {
	t.Parallel()
	doc := testenv.Contract(t)
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "replaydocs", 10000)
	api := testenv.NewAPI(t, s, key)
	gift := api.Do("POST", "/api/campaigns/gifts", map[string]any{"name": "Mug", "price": 10, "currency": "USD",
		"inventory": map[string]any{"total": 10, "available": 10, "reserved": 0}}).Map(t)["data"].(map[string]any)["giftId"].(string)
	listID := createList(t, api, "replay")
	importContacts(t, api, listID, map[string]any{"mailId": "ada@example.com"})
	campaign := map[string]any{"name": "Replayed", "contactListIds": []string{listID},
		"campaignData": map[string]any{"giftIds": []string{gift}}}
	created := api.Do("POST", "/api/campaigns", campaign, "Idempotency-Key", "create-1").Map(t)
	campaignID := created["data"].(map[string]any)["campaignId"].(string)
	other := api.Do("POST", "/api/campaigns", campaign).Map(t)["data"].(map[string]any)["campaignId"].(string)

	for _, tc := range []struct {
		name, pattern, path string
		body                any
	}{
		{"create campaign", "/api/campaigns", "/api/campaigns", campaign},
		{"launch", "/api/campaigns/{campaignId}/launch", "/api/campaigns/" + campaignID + "/launch", nil},
		{"add recipient", "/api/campaigns/campaigns/{campaignId}/add-recipient", "/api/campaigns/campaigns/" + other + "/add-recipient",
			map[string]any{"contactDetails": map[string]any{"email": "grace@example.com"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "replay-" + strings.ReplaceAll(tc.name, " ", "-")
			if tc.name == "create campaign" {
				key = "create-1" // replays the create above
			} else if first := api.Do("POST", tc.path, tc.body, "Idempotency-Key", key); first.Status >= 300 {
				t.Fatalf("first request: %d %s", first.Status, first.Body)
			}
			res := api.Do("POST", tc.path, tc.body, "Idempotency-Key", key)
			if got := res.Header.Get("Idempotent-Replayed"); got != "true" {
				t.Fatalf("replay: %d, Idempotent-Replayed %q, want true", res.Status, got)
			}
			op := doc.Paths.Value(tc.pattern).Post
			documented := op.Responses.Status(res.Status)
			if documented == nil || documented.Value.Headers["Idempotent-Replayed"] == nil {
				t.Errorf("the replay's %d answer carries Idempotent-Replayed, which the document does not declare on it", res.Status)
			}
		})
	}
}
