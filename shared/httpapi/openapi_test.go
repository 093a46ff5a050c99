package httpapi_test

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/giftcampaign/service/shared/httpapi"
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
