package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/testenv"
)

// The fuzz tests send arbitrary request bodies to every POST endpoint and
// arbitrary query strings to every list endpoint. Whatever arrives, the
// service must answer without a panic or a 5xx, malformed input must get a
// 4xx, and every answer must match the API document (API.Do checks that).
// `make fuzz` runs each briefly; `go test` runs their seed corpora.

// fuzzTarget is an endpoint with its path parameters filled in.
type fuzzTarget struct {
	method, path string // path ready to request
	op           *openapi3.Operation
}

// fuzzSetup builds a service with one organization and, as far as the
// documented examples allow, one resource of each kind, so that endpoints
// under an id reach their decoding rather than stopping at 404.
func fuzzSetup(f *testing.F, method string, want func(*openapi3.Operation) bool) (http.Handler, string, []fuzzTarget) {
	f.Helper()
	s := testenv.Store(f)
	_, key := testenv.Org(f, s, "fuzz", 1_000_000)
	api := testenv.NewAPI(f, s, key)
	doc := testenv.Contract(f)
	ids := fixtures(f, api, doc)
	var targets []fuzzTarget
	for _, g := range httpapi.Groups {
		for _, pattern := range httpapi.Routes(g) {
			m, path, _ := strings.Cut(pattern, " ")
			item := doc.Paths.Value(path)
			if m != method || item == nil || item.GetOperation(m) == nil || !want(item.GetOperation(m)) {
				continue
			}
			targets = append(targets, fuzzTarget{method: m, path: fillPath(path, ids), op: item.GetOperation(m)})
		}
	}
	slices.SortFunc(targets, func(a, b fuzzTarget) int { return strings.Compare(a.path, b.path) })
	if len(targets) == 0 {
		f.Fatalf("no %s endpoint to fuzz", method)
	}
	return api.Handler, key, targets
}

// fixtures creates resources by posting each create operation's documented
// example, twice: the second round can refer to what the first created.
// It returns the ids seen in the answers, by field name.
func fixtures(f *testing.F, api *testenv.API, doc *openapi3.T) map[string]string {
	f.Helper()
	ids := map[string]string{"giftId": "gift-artisan-coffee", "templateId": "tmpl-meeting-booker"}
	for range 2 {
		for _, path := range doc.Paths.InMatchingOrder() {
			op := doc.Paths.Value(path).Post
			if op == nil || op.RequestBody == nil || strings.Contains(path, "{") && !fillable(path, ids) {
				continue
			}
			c := op.RequestBody.Value.Content.Get("application/json")
			if c == nil || c.Example == nil {
				continue
			}
			body := withIDs(c.Example, "", ids)
			res := api.Do("POST", fillPath(path, ids), body)
			var got any
			if res.Status < 300 && json.Unmarshal(res.Body, &got) == nil {
				harvest(got, "", ids)
			}
		}
	}
	return ids
}

// aliases name the id a body field refers to, where it differs.
var aliases = map[string]string{
	"contactListId": "listId", "contactListIds": "listId", "emailTemplateId": "templateId",
	"giftIds": "giftId", "contactIds": "contactId", "campaignIds": "campaignId", "eventId": "id",
}

// withIDs replaces the example's ids with real ones.
func withIDs(v any, key string, ids map[string]string) any {
	name := key
	if a, ok := aliases[key]; ok {
		name = a
	}
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			out[k] = withIDs(x, k, ids)
		}
		return out
	case []any:
		if id, ok := ids[name]; ok && len(v) > 0 {
			if _, isStr := v[0].(string); isStr {
				return []any{id}
			}
		}
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withIDs(x, "", ids)
		}
		return out
	case string:
		if id, ok := ids[name]; ok {
			return id
		}
	}
	return v
}

// harvest records string fields named like ids.
func harvest(v any, key string, ids map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			harvest(x, k, ids)
		}
	case []any:
		for _, x := range v {
			harvest(x, "", ids)
		}
	case string:
		if (key == "id" || strings.HasSuffix(key, "Id")) && key != "organizationId" && ids[key] == "" {
			ids[key] = v
		}
	}
}

func fillable(path string, ids map[string]string) bool {
	return !strings.Contains(fillPath(path, ids), "{")
}

// fillPath puts known ids into a path's parameters; an unknown one gets an
// id that exists nowhere.
func fillPath(path string, ids map[string]string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			if id, ok := ids[strings.Trim(s, "{}")]; ok {
				segs[i] = id
			} else {
				segs[i] = "missing-" + strings.Trim(s, "{}")
			}
		}
	}
	return strings.Join(segs, "/")
}

// checkAnswer fails on a 5xx, and on a 2xx to input that is not even a
// JSON object (the documented shape is checked by API.Do already).
func checkAnswer(t *testing.T, target fuzzTarget, input string, res testenv.Response, malformed bool) {
	t.Helper()
	if res.Status >= 500 {
		t.Fatalf("%s %s with %q: status %d: %s", target.method, target.path, input, res.Status, res.Body)
	}
	if malformed && res.Status < 400 {
		t.Fatalf("%s %s accepted malformed input %q: status %d", target.method, target.path, input, res.Status)
	}
	if res.Status >= 400 {
		var e struct {
			Success    *bool  `json:"success"`
			StatusCode int    `json:"statusCode"`
			Error      string `json:"error"`
		}
		if json.Unmarshal(res.Body, &e) != nil || e.Success == nil || *e.Success || e.StatusCode != res.Status || e.Error == "" {
			t.Fatalf("%s %s with %q: status %d without the error shape: %s", target.method, target.path, input, res.Status, res.Body)
		}
	}
}

func FuzzDecode(f *testing.F) {
	h, key, targets := fuzzSetup(f, "POST", func(op *openapi3.Operation) bool { return op.RequestBody != nil })
	for i, tg := range targets {
		if c := tg.op.RequestBody.Value.Content.Get("application/json"); c != nil && c.Example != nil {
			if b, err := json.Marshal(c.Example); err == nil {
				f.Add(uint8(i), string(b))
			}
		}
	}
	for i, seed := range []string{
		"", "{", "}", "[]", "null", "0", `"x"`, "{}", "{}{}", "{} x", `{"name":}`, `{"name":"a","name":"b"}`,
		`{"unknown":1}`, `{"name":1e400}`, `{"price":"10"}`, `{"name":"\ud800"}`, `{"name":"a\u0000b"}`,
		strings.Repeat("[", 10000), `{"contacts":[` + strings.Repeat(`{"mailId":"a@b.co"},`, 150) + `{}]}`,
		`{"contactDetails":{"email":"x"},"sourceType":"fax"}`, `{"inventory":{"total":-1}}`, "\xff\xfe{}",
		`{"name":"a\udc00"}`, `{"name":"\ud83d\ude00"}`, `{"name":"\ud800\u0041"}`, "{\"name\":\"a\xffb\"}", `{"name":"\b\f"}`,
		`{"a\u0000":1}`, `{"giftIds":["` + strings.Repeat("g", 1016) + `"]}`, `{"contactIds":["a#b"]}`, `{"icpId":" x "}`,
	} {
		// Each seed goes to two endpoints, not to all: the fuzzer moves
		// inputs between them, and a short run gets past its seeds.
		f.Add(uint8(i), seed)
		f.Add(uint8(i+len(targets)/2), seed)
	}
	f.Fuzz(func(t *testing.T, which uint8, body string) {
		target := targets[int(which)%len(targets)]
		api := testenv.HandlerAPI(t, h, key)
		var v map[string]any
		// An endpoint whose body is optional may ignore it.
		malformed := target.op.RequestBody.Value.Required && (json.Unmarshal([]byte(body), &v) != nil || v == nil)
		res := api.Do(target.method, target.path, body)
		checkAnswer(t, target, body, res, malformed)
	})
}

func FuzzListQuery(f *testing.F) {
	h, key, targets := fuzzSetup(f, "GET", func(op *openapi3.Operation) bool {
		for _, p := range op.Parameters {
			if p.Value.Name == "page" && p.Value.In == "query" {
				return true
			}
		}
		return false
	})
	for i, seed := range []string{
		"", "page=1&limit=100", "page=0", "page=-1", "page=abc", "page=1.5", "page=99999999999999999999",
		"limit=0", "limit=101", "limit=", "limit=%20", "limit=1e2", "page=1&page=2", "sortOrder=up",
		"sortOrder=ASC", "sortBy=nope", "status=lost", "status=,", "status=invite_sent,,shipped",
		"search=%00", "search=" + strings.Repeat("x", 5000), "search=%zz", "createdFrom=2026-13-01",
		"createdFrom=yesterday", "createdTo=2026-01-01T00:00:00Z", "groupBy=maybe", "feedback=1",
		"isDelightloop=yes", "myCampaigns=TRUE", "&&&", "=", "page", "%", "a=b=c", ";page=2",
	} {
		f.Add(uint8(i), seed)
		f.Add(uint8(i+len(targets)/2), seed)
	}
	f.Fuzz(func(t *testing.T, which uint8, query string) {
		target := targets[int(which)%len(targets)]
		api := testenv.HandlerAPI(t, h, key)
		res := api.Do(target.method, target.path+"?"+requestTarget(query), nil)
		checkAnswer(t, target, query, res, false)
	})
}

// requestTarget escapes what cannot stand in a request line (controls,
// spaces, '#', non-ASCII), leaving everything else, malformed escapes
// included, for the service to cope with.
func requestTarget(q string) string {
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c <= ' ' || c == '#' || c >= 0x7f {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])+string("0123456789abcdef"[c&15])))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
