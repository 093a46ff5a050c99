package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/giftcampaign/service/shared/apidocs/openapijson"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/testenv"
)

// docsAPI is a client without a key: the document is public.
func docsAPI(t *testing.T) *testenv.API {
	t.Helper()
	return testenv.NewAPI(t, testenv.Store(t), "")
}

func TestOpenAPIJSON(t *testing.T) {
	t.Parallel()
	res := docsAPI(t).Do("GET", "/api/campaigns/openapi.json", nil)
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET openapi.json without a key: %d %q", res.Status, res.Header.Get("Content-Type"))
	}
	var fromJSON any
	res.JSON(t, &fromJSON)
	var fromYAML any
	if err := yaml.Unmarshal(httpapi.OpenAPIYAML(), &fromYAML); err != nil {
		t.Fatal(err)
	}
	// Round-trip the YAML through encoding/json so both sides hold the
	// same Go types (float64 numbers, map[string]any objects).
	buf, err := json.Marshal(fromYAML)
	if err != nil {
		t.Fatalf("openapi.yaml holds something JSON cannot: %v", err)
	}
	var want any
	if err := json.Unmarshal(buf, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, want) {
		t.Fatal("openapi.json is not the same document as openapi.yaml")
	}
	// Keys keep the order they are written in, so paths read in order.
	first := strings.Index(string(res.Body), `"/api/campaigns/gifts"`)
	second := strings.Index(string(res.Body), `"/api/campaigns/gifts/{giftId}"`)
	if first < 0 || second < first {
		t.Errorf("paths are out of document order: gifts at %d, gifts/{giftId} at %d", first, second)
	}
}

// TestOpenAPIJSONIsGenerated keeps openapi.json, which the catalog function
// serves and renders, the conversion of openapi.yaml as written: after an
// edit of the YAML, make client regenerates it.
func TestOpenAPIJSONIsGenerated(t *testing.T) {
	t.Parallel()
	want, err := openapijson.Convert(httpapi.OpenAPIYAML())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(httpapi.OpenAPIJSON(), want) {
		t.Fatal("shared/httpapi/openapi.json is stale: run make client")
	}
}

func TestDocsPage(t *testing.T) {
	t.Parallel()
	res := docsAPI(t).Do("GET", "/api/campaigns/docs", nil)
	if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET docs without a key: %d %q", res.Status, res.Header.Get("Content-Type"))
	}
	page := string(res.Body)
	doc := testenv.Contract(t)
	t.Run("every operation with its parameters and responses", func(t *testing.T) {
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				if !strings.Contains(page, `id="op-`+op.OperationID+`"`) {
					t.Errorf("no section for %s %s (operationId %q)", method, path, op.OperationID)
				}
				if !strings.Contains(page, "<code>"+htmlEscape(path)+"</code>") {
					t.Errorf("path %s is not shown", path)
				}
				for _, p := range op.Parameters {
					if p.Value != nil && !strings.Contains(page, "<code>"+htmlEscape(p.Value.Name)+"</code>") {
						t.Errorf("parameter %s of %s %s is not shown", p.Value.Name, method, path)
					}
				}
			}
		}
	})
	t.Run("every schema", func(t *testing.T) {
		for name := range doc.Components.Schemas {
			if !strings.Contains(page, `id="schema-`+name+`"`) {
				t.Errorf("schema %s has no section", name)
			}
		}
	})
	t.Run("bounds, defaults and examples", func(t *testing.T) {
		for _, want := range []string{"1..100", "default 12", "Artisan Coffee Sampler", "x-api-key", "(public: no API key)"} {
			if !strings.Contains(page, want) {
				t.Errorf("the page does not show %q", want)
			}
		}
	})
	t.Run("text from the document is escaped", func(t *testing.T) {
		// The createTemplate example holds HTML; it must show as text.
		if strings.Contains(page, "<p>Hi {{firstName}}</p>") || !strings.Contains(page, "&lt;p&gt;Hi {{firstName}}&lt;/p&gt;") {
			t.Error("example HTML is not escaped")
		}
	})
	t.Run("self-contained", func(t *testing.T) {
		external := regexp.MustCompile(`(?i)<(script|link|img|iframe)\b|(src|href)="(https?:)?//`)
		if m := external.FindString(page); m != "" {
			t.Errorf("the page loads something from elsewhere: %s", m)
		}
	})
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
