package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/giftcampaign/service/shared/httpapi"
)

// The API document is loaded once per test binary. kin-openapi is imported
// here, in a package only tests use, so it never reaches a Lambda binary.
var contract = sync.OnceValues(func() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(httpapi.OpenAPIYAML())
	if err != nil {
		return nil, fmt.Errorf("load openapi.yaml: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		hint := ""
		if strings.Contains(err.Error(), "extra sibling fields") {
			hint = " (often an unquoted comma inside a {flow: mapping}, which splits a description: quote the text)"
		}
		return nil, fmt.Errorf("openapi.yaml is not a valid OpenAPI document: %w%s", err, hint)
	}
	// The docs page is the one response that is not JSON.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	return doc, nil
})

// Contract returns the API document, loaded and validated, failing the
// test when it is not a valid OpenAPI document.
func Contract(t testing.TB) *openapi3.T {
	t.Helper()
	doc, err := contract()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// ValidateContract checks one exchange against the API document (the
// default Validate hook, so every response a test receives through API.Do
// is checked):
//   - the path and method must be documented, unless the answer is the 404
//     every unknown route gets;
//   - the status must be documented for the operation, and the body must
//     match the schema and content type documented for it;
//   - a request the document calls invalid (bad parameter, body or missing
//     key) must be refused with a 4xx: tests send bad input on purpose,
//     but the service must never accept what its contract forbids.
//
// req must still carry its body (API.Do restores it).
func ValidateContract(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	doc := Contract(t)
	name := req.Method + " " + req.URL.Path
	route, params, err := findRoute(doc, req)
	if err != nil {
		if status == http.StatusNotFound && isErrorBody(body, "NOT_FOUND") {
			return
		}
		t.Errorf("openapi.yaml: %s is not documented (%v), yet it was answered %d: document it in openapi.yaml or stop serving it; body %s",
			name, err, status, excerpt(body))
		return
	}
	op := req.Method + " " + route.Path
	opts := &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
		AuthenticationFunc:    apiKeyPresent,
		// Defaults would be written into the request's query: leave it as sent.
		SkipSettingDefaults: true,
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	reqErr := openapi3filter.ValidateRequest(context.Background(), in)
	if reqErr != nil && (status < 400 || status >= 500) {
		t.Errorf("openapi.yaml: the request %s (operation %s) breaks the document, yet it was answered %d, not a 4xx:\n%s",
			name, op, status, short(reqErr))
	}
	if route.Operation.Responses.Status(status) == nil && route.Operation.Responses.Default() == nil {
		t.Errorf("openapi.yaml: status %d of %s (request %s) is not documented; documented: %s; body %s",
			status, op, name, strings.Join(statuses(route.Operation), ", "), excerpt(body))
		return
	}
	res := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                opts,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), res); err != nil {
		t.Errorf("openapi.yaml: the %d response of %s (request %s) does not match the document:\n%s\nbody %s",
			status, op, name, short(err), excerpt(body))
	}
}

// findRoute finds the documented operation of req the way API Gateway and
// the service's own router choose: compared segment by segment, a literal
// beats a path variable.
func findRoute(doc *openapi3.T, req *http.Request) (*routers.Route, map[string]string, error) {
	segs := strings.Split(req.URL.EscapedPath(), "/")
	var (
		best       string
		bestItem   *openapi3.PathItem
		bestParams map[string]string
	)
	for path, item := range doc.Paths.Map() {
		params, ok := matchPath(strings.Split(path, "/"), segs)
		if !ok {
			continue
		}
		if bestItem == nil || httpapi.MoreSpecific(path, best) {
			best, bestItem, bestParams = path, item, params
		}
	}
	if bestItem == nil {
		return nil, nil, errors.New("no path of the document matches")
	}
	op := bestItem.GetOperation(req.Method)
	if op == nil {
		return nil, nil, fmt.Errorf("path %s has no %s operation", best, req.Method)
	}
	return &routers.Route{Spec: doc, Path: best, PathItem: bestItem, Method: req.Method, Operation: op}, bestParams, nil
}

func matchPath(pattern, segs []string) (map[string]string, bool) {
	if len(pattern) != len(segs) {
		return nil, false
	}
	params := map[string]string{}
	for i, p := range pattern {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			v, err := url.PathUnescape(segs[i])
			if err != nil || v == "" {
				return nil, false
			}
			params[p[1:len(p)-1]] = v
			continue
		}
		if p != segs[i] {
			return nil, false
		}
	}
	return params, true
}

// apiKeyPresent is the document's only security scheme, checked as far as
// a document can: the header is there. Whether the key is valid is the
// service's to say, with 401.
func apiKeyPresent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	if in.SecurityScheme.Type == "apiKey" && in.SecurityScheme.In == "header" &&
		in.RequestValidationInput.Request.Header.Get(in.SecurityScheme.Name) != "" {
		return nil
	}
	return fmt.Errorf("no %s header", in.SecurityScheme.Name)
}

func isErrorBody(body []byte, code string) bool {
	return bytes.Contains(body, []byte(`"success":false`)) && bytes.Contains(body, []byte(`"code":"`+code+`"`))
}

func statuses(op *openapi3.Operation) []string {
	var out []string
	for s := range op.Responses.Map() {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// short keeps a validation error readable: kin-openapi repeats the schema
// and the value in every error.
func short(err error) string {
	s := err.Error()
	if len(s) > 3000 {
		s = s[:3000] + " …"
	}
	return s
}

func excerpt(body []byte) string {
	if len(body) > 600 {
		return string(body[:600]) + " …"
	}
	return string(body)
}
