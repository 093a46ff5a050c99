package deployhook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-lambda-go/events"
)

// SmokePaths is the read each API function answers in a smoke probe: a GET
// route of its group without path parameters (a list, or the wallet), so
// the request needs nothing but a key and reads only the caller's own
// organization.
var SmokePaths = map[string]string{
	"catalog":    "/api/campaigns/gifts",
	"contacts":   "/api/campaigns/contacts",
	"campaigns":  "/api/campaigns/campaigns",
	"recipients": "/api/campaigns/wallet",
	"audiences":  "/api/campaigns/audience-lists",
	"events":     "/api/campaigns/events",
	"webhooks":   "/api/campaigns/webhooks",
}

// OperatorSmokePath is the operator function's probe: a read without path
// parameters.
const OperatorSmokePath = "/api/operator/organizations"

// UnknownPageID is a well-formed page id (the legacy form: 26 characters of
// lower-case base32) that names no recipient: the pages function looks it
// up on the Pages index and answers its 404 page.
const UnknownPageID = "codedeployhooksmokecheckaa"

// unauthorized is the documented 401 body, exactly: missing, unknown and
// revoked keys all get it, with no code and no detail.
var unauthorized = map[string]any{
	"success":    false,
	"statusCode": float64(http.StatusUnauthorized),
	"message":    "Unauthorized",
	"error":      "Invalid or missing API key",
}

// A Probe is one event sent to the version under test and the check of the
// function's answer (the invocation's payload).
type Probe struct {
	Name    string
	Payload []byte
	Check   func(payload []byte) error
}

// Probes returns the smoke probes of a function group (the part of its name
// after gift-campaigns-<Stage>-). An API function must refuse a request
// without a key with exactly the documented 401 (its routing, its error
// shape, its start-up), and, given the canary organization's apiKey, answer
// a read with 200 (its table and its permissions on it). The pages must
// answer an unknown page with the 404 page; the worker must take an empty
// batch. An unknown group is an error: a function added to the stack needs
// its probes before it can be deployed.
func Probes(group, apiKey string) ([]Probe, error) {
	switch group {
	case "pages":
		return []Probe{{
			Name:    "unknown page",
			Payload: httpEvent(http.MethodGet, "/gift/{pageId}", "/gift/"+UnknownPageID, ""),
			Check:   pageNotFound,
		}}, nil
	case "worker":
		return []Probe{{
			Name:    "empty batch",
			Payload: []byte(`{"Records":[]}`),
			Check:   batchTaken,
		}}, nil
	case "operator":
		// No key reaches the operator API: a request the IAM authorizer
		// did not sign in must be refused (its routing, its error shape,
		// its start-up). The canary has no operator identity to read with.
		return []Probe{{
			Name:    "GET " + OperatorSmokePath + " unsigned",
			Payload: httpEvent(http.MethodGet, OperatorSmokePath, OperatorSmokePath, ""),
			Check:   refusedUnsigned,
		}}, nil
	}
	path, ok := SmokePaths[group]
	if !ok {
		return nil, fmt.Errorf("no smoke probes for the function group %q", group)
	}
	probes := []Probe{{
		Name:    "GET " + path + " without a key",
		Payload: httpEvent(http.MethodGet, path, path, ""),
		Check:   refusedUnauthenticated,
	}}
	if apiKey != "" {
		probes = append(probes, Probe{
			Name:    "GET " + path + " with the canary key",
			Payload: httpEvent(http.MethodGet, path, path, apiKey),
			Check:   answeredOK,
		})
	}
	return probes, nil
}

// httpEvent is the API Gateway (HTTP API, payload 2.0) event of a request
// to route, as the stack's API sends it to a function.
func httpEvent(method, route, path, apiKey string) []byte {
	const agent = "gift-campaigns-deploy-hook"
	headers := map[string]string{"accept": "application/json, text/html", "user-agent": agent}
	if apiKey != "" {
		headers["x-api-key"] = apiKey
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version:  "2.0",
		RouteKey: method + " " + route,
		RawPath:  path,
		Headers:  headers,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:   method + " " + route,
			Stage:      "$default",
			RequestID:  "deploy-hook-smoke",
			DomainName: "deploy-hook.invalid",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: method, Path: path, Protocol: "HTTP/1.1", SourceIP: "127.0.0.1", UserAgent: agent,
			},
		},
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		// A struct of strings always encodes.
		panic(err)
	}
	return raw
}

// httpAnswer decodes a function's HTTP answer: its status, headers and body.
func httpAnswer(payload []byte) (events.APIGatewayV2HTTPResponse, []byte, error) {
	var res events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(payload, &res); err != nil || res.StatusCode == 0 {
		return res, nil, fmt.Errorf("the answer is not an HTTP response: %s", clip(payload))
	}
	body := []byte(res.Body)
	if res.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(res.Body); err != nil {
			return res, nil, fmt.Errorf("the answer's body is not base64: %w", err)
		}
	}
	return res, body, nil
}

func refusedUnauthenticated(payload []byte) error {
	res, body, err := httpAnswer(payload)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("answered %d, want 401", res.StatusCode)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil || !reflect.DeepEqual(got, unauthorized) {
		return fmt.Errorf("answered 401 with %s, want exactly the fields %v", clip(body), slices.Sorted(maps.Keys(unauthorized)))
	}
	return nil
}

// refusedUnsigned is the operator API's refusal of a request without the
// IAM authorizer's identity: 401 in the documented error shape.
func refusedUnsigned(payload []byte) error {
	res, body, err := httpAnswer(payload)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("answered %d, want 401", res.StatusCode)
	}
	var got struct {
		Success    *bool   `json:"success"`
		StatusCode float64 `json:"statusCode"`
	}
	if err := json.Unmarshal(body, &got); err != nil || got.Success == nil || *got.Success || got.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("answered 401 with %s, want the error shape", clip(body))
	}
	return nil
}

func answeredOK(payload []byte) error {
	res, body, err := httpAnswer(payload)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		// The body of an error is the documented error shape: no tenant
		// data, safe to report.
		return fmt.Errorf("answered %d, want 200: %s", res.StatusCode, clip(body))
	}
	if !json.Valid(body) {
		return fmt.Errorf("answered 200 with a body that is not JSON")
	}
	return nil
}

func pageNotFound(payload []byte) error {
	res, body, err := httpAnswer(payload)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusNotFound {
		return fmt.Errorf("answered %d, want 404", res.StatusCode)
	}
	if ct := header(res, "Content-Type"); !strings.HasPrefix(ct, "text/html") || !bytes.Contains(body, []byte("</html>")) {
		return fmt.Errorf("answered 404 as %q, want the HTML page", ct)
	}
	return nil
}

func batchTaken(payload []byte) error {
	var res events.SQSEventResponse
	if err := json.Unmarshal(payload, &res); err != nil {
		return fmt.Errorf("the answer is not a batch response: %s", clip(payload))
	}
	if len(res.BatchItemFailures) != 0 {
		return fmt.Errorf("reported %d failures of an empty batch", len(res.BatchItemFailures))
	}
	return nil
}

// header returns a response header, whatever its case.
func header(res events.APIGatewayV2HTTPResponse, name string) string {
	for k, v := range res.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	for k, v := range res.MultiValueHeaders {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// clip bounds what of a function's answer reaches the hook's log.
func clip(b []byte) string {
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
