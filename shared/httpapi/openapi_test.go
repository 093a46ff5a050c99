package httpapi_test

import (
	"context"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/pages"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestOpenAPIDocumentIsValid keeps openapi.yaml a valid OpenAPI 3.1
// document: every $ref resolves, every schema is well formed and every
// example matches its schema.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	t.Parallel()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(httpapi.OpenAPIYAML())
	if err != nil {
		t.Fatalf("load openapi.yaml: %v", err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("openapi.yaml is not a valid document: %v", err)
	}
}

// TestOpenAPIPathsMatchRoutes keeps the document, the handlers and
// template.yaml one set of routes: an endpoint missing from the document
// is unknown to its users and unchecked by the tests, and a documented one
// that is not served is a broken promise.
func TestOpenAPIPathsMatchRoutes(t *testing.T) {
	t.Parallel()
	doc := testenv.Contract(t)
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			// OpenAPI paths use ServeMux's {name} form already.
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	served := map[string]string{}
	for _, g := range httpapi.Groups {
		for _, r := range httpapi.Routes(g) {
			if other, dup := served[r]; dup {
				t.Errorf("%q is served by both %s and %s", r, other, g)
			}
			served[r] = g.String()
		}
	}
	// The recipient pages are documented as HTML responses.
	for _, r := range pages.Routes() {
		served[r] = "pages"
	}
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	declared, err := localstack.TemplateRoutes(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	routed := map[string]bool{}
	for _, routes := range declared {
		for _, r := range routes {
			routed[r] = true
		}
	}
	for _, r := range slices.Sorted(maps.Keys(served)) {
		if !documented[r] {
			t.Errorf("the %s group serves %q, which openapi.yaml does not document", served[r], r)
		}
		if !routed[r] {
			t.Errorf("the %s group serves %q, which template.yaml does not route", served[r], r)
		}
	}
	for _, r := range slices.Sorted(maps.Keys(documented)) {
		if _, ok := served[r]; !ok {
			t.Errorf("openapi.yaml documents %q, which no group serves", r)
		}
		if !routed[r] {
			t.Errorf("openapi.yaml documents %q, which template.yaml does not route", r)
		}
	}
}

// TestOpenAPIOperationsAreComplete holds every operation to the same
// standard, so a reader (and schemathesis) learns every way it can answer:
// a name, a tag, the errors its kind of input can cause, bounds on every
// number, and an example of each success.
func TestOpenAPIOperationsAreComplete(t *testing.T) {
	t.Parallel()
	doc := testenv.Contract(t)
	tags := map[string]bool{}
	for _, tag := range doc.Tags {
		tags[tag.Name] = true
	}
	ids := map[string]string{}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			name := method + " " + path
			t.Run(name, func(t *testing.T) {
				if op.OperationID == "" {
					t.Error("no operationId")
				} else if other, dup := ids[op.OperationID]; dup {
					t.Errorf("operationId %q is also %s", op.OperationID, other)
				}
				ids[op.OperationID] = name
				if op.Summary == "" {
					t.Error("no summary")
				}
				if len(op.Tags) != 1 || !tags[op.Tags[0]] {
					t.Errorf("tags %q: want one of the document's tags", op.Tags)
				}
				public := op.Security != nil && len(*op.Security) == 0
				var want []string
				if !public {
					want = append(want, "401", "500", "503")
				}
				hasQuery, hasPathParam := false, false
				for _, p := range op.Parameters {
					switch p.Value.In {
					case "query":
						hasQuery = true
						if s := p.Value.Schema.Value; s.Type.Is("integer") && (s.Min == nil || s.Max == nil) {
							t.Errorf("query parameter %s: an integer needs a minimum and a maximum", p.Value.Name)
						}
					case "path":
						hasPathParam = true
					}
				}
				if hasQuery || op.RequestBody != nil {
					want = append(want, "400")
				}
				if hasPathParam {
					want = append(want, "404")
				}
				if op.RequestBody != nil {
					want = append(want, "413", "415")
					for mt, c := range op.RequestBody.Value.Content {
						if s := c.Schema.Value; s.Type.Is("object") && (s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has) {
							t.Errorf("request body %s: the service rejects unknown fields, so say additionalProperties: false", mt)
						}
					}
				}
				for _, status := range want {
					if op.Responses.Status(atoi(status)) == nil {
						t.Errorf("status %s is not documented", status)
					}
				}
				for status, r := range op.Responses.Map() {
					if strings.HasPrefix(status, "2") {
						for mt, c := range r.Value.Content {
							if c.Example == nil && len(c.Examples) == 0 {
								t.Errorf("response %s %s has no example", status, mt)
							}
						}
					}
					if strings.HasPrefix(status, "4") || strings.HasPrefix(status, "5") {
						if op.Tags[0] == "Recipient pages" {
							// The recipient's pages answer every error as a page.
							if r.Value.Content.Get("text/html") == nil {
								t.Errorf("response %s: a recipient page answers text/html", status)
							}
							continue
						}
						if !isErrorResponse(r) {
							t.Errorf("response %s: use a response of components/responses, or a schema built on Error", status)
						}
					}
				}
			})
		}
	}
}

// isErrorResponse reports whether an error response has the error shape:
// one of the shared responses, or a schema that is, extends or restates
// Error.
func isErrorResponse(r *openapi3.ResponseRef) bool {
	if strings.HasPrefix(r.Ref, "#/components/responses/") {
		return true
	}
	c := r.Value.Content.Get("application/json")
	return c != nil && c.Schema != nil && hasErrorShape(c.Schema)
}

func hasErrorShape(s *openapi3.SchemaRef) bool {
	if strings.HasSuffix(s.Ref, "/Error") || strings.HasSuffix(s.Ref, "/UnauthorizedError") {
		return true
	}
	for _, part := range s.Value.AllOf {
		if hasErrorShape(part) {
			return true
		}
	}
	if alts := slices.Concat(s.Value.AnyOf, s.Value.OneOf); len(alts) > 0 {
		for _, part := range alts {
			if !hasErrorShape(part) {
				return false
			}
		}
		return true
	}
	for _, field := range []string{"success", "statusCode", "message", "error", "code"} {
		if !slices.Contains(s.Value.Required, field) {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestFunctionsDoNotLinkTheValidator keeps kin-openapi, which only the
// tests need, the generated Go client with its runtime, the benchmark's
// code (its capacity meter) and the IAM check's recorder of AWS calls out
// of the Lambda binaries (≤ 10 MB each).
func TestFunctionsDoNotLinkTheValidator(t *testing.T) {
	t.Parallel()
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", "./functions/...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "github.com/getkin/") || strings.HasPrefix(pkg, "github.com/oapi-codegen/") ||
			pkg == "github.com/giftcampaign/service/shared/testenv" || pkg == "github.com/giftcampaign/service/client" ||
			strings.HasPrefix(pkg, "github.com/giftcampaign/service/bench") ||
			strings.HasPrefix(pkg, "github.com/giftcampaign/service/infra/iamcheck") {
			t.Errorf("a Lambda function links %s", pkg)
		}
	}
}
