package httpapi

import _ "embed"

// openapiYAML is the API contract (openapi.yaml): the source of
// GET /api/campaigns/openapi.json and of the docs page, and what the tests
// validate every response against.
//
//go:embed openapi.yaml
var openapiYAML []byte

// OpenAPIYAML returns the API document as written, in YAML.
func OpenAPIYAML() []byte { return openapiYAML }
