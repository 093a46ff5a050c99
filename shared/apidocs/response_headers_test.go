package apidocs_test

import (
	"html"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/giftcampaign/service/shared/apidocs"
	"github.com/giftcampaign/service/shared/httpapi"
)

// TestPageShowsResponseHeaders checks that the docs page shows, in each
// operation's section, every header its responses declare: Retry-After on
// a 429 or 503, RateLimit, Idempotent-Replayed. An integrator reading the
// page rather than the JSON would otherwise never learn when to retry or
// how to tell a replay from a first success.
func TestPageShowsResponseHeaders(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(httpapi.OpenAPIYAML())
	if err != nil {
		t.Fatal(err)
	}
	page, err := apidocs.New(httpapi.OpenAPIJSON()).Page()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			section := sectionOf(string(page), "op-"+op.OperationID)
			if section == "" {
				t.Errorf("%s %s: no section on the page", method, path)
				continue
			}
			for status, r := range op.Responses.Map() {
				for name := range r.Value.Headers {
					checked++
					if !strings.Contains(section, "<code>"+html.EscapeString(name)+"</code>") {
						t.Errorf("%s %s: header %s of response %s is not shown", method, path, name, status)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("the document declares no response header; the test checks nothing")
	}
}

// sectionOf returns the HTML of the section with the given id.
func sectionOf(page, id string) string {
	start := strings.Index(page, `<section id="`+id+`"`)
	if start < 0 {
		return ""
	}
	end := strings.Index(page[start:], "</section>")
	if end < 0 {
		return page[start:]
	}
	return page[start : start+end]
}
