package httpapi

import (
	_ "embed"
	"net/http"

	"github.com/giftcampaign/service/shared/gifting"
)

// openapiYAML is the API contract (openapi.yaml): the source of
// GET /api/campaigns/openapi.json and of the docs page, and what the tests
// validate every response against.
//
//go:embed openapi.yaml
var openapiYAML []byte

// OpenAPIYAML returns the API document as written, in YAML.
func OpenAPIYAML() []byte { return openapiYAML }

// Docs is the API document in the forms GET /api/campaigns/openapi.json
// and GET /api/campaigns/docs serve (shared/apidocs renders them from
// OpenAPIYAML). Only the function serving those routes is given one, so
// only it links the renderer; a server without one answers them 404.
type Docs interface {
	// JSON is the document as JSON, keys in the order they are written.
	JSON() ([]byte, error)
	// Page is the document as a self-contained HTML page.
	Page() ([]byte, error)
}

func (s *Server) getOpenAPI(w http.ResponseWriter, r *http.Request) error {
	return s.serveDoc(w, "application/json", Docs.JSON)
}

func (s *Server) getDocs(w http.ResponseWriter, r *http.Request) error {
	return s.serveDoc(w, "text/html; charset=utf-8", Docs.Page)
}

func (s *Server) serveDoc(w http.ResponseWriter, contentType string, form func(Docs) ([]byte, error)) error {
	if s.cfg.Docs == nil {
		return gifting.Errorf(gifting.CodeNotFound, "this function does not serve the API document")
	}
	body, err := form(s.cfg.Docs)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", contentType)
	// The document changes only with a deployment.
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}
