package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestTruncatedBodyIsNotCalledEmpty: a JSON body cut short (a client
// that sent half of it, a shell quote lost) is answered 400 MALFORMED_REQUEST
// saying the JSON is not valid, not that the body is empty, which sends
// the integrator looking for the wrong mistake; an empty body still says
// it is empty.
func TestTruncatedBodyIsNotCalledEmpty(t *testing.T) {
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "truncated-body", 0)
	api := testenv.NewAPI(t, s, key)
	for _, tt := range []struct {
		name, body, want string
	}{
		{"an object never closed", `{"name":"Leads"`, "not valid JSON"},
		{"a key without its value", `{"name":`, "not valid JSON"},
		{"an open brace alone", `{`, "not valid JSON"},
		{"an array never closed", `{"name":"Leads","tags":["a",`, "not valid JSON"},
		{"an empty body", ``, "empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got struct {
				Code  string `json:"code"`
				Error string `json:"error"`
			}
			res := api.Do("POST", "/api/campaigns/contact-lists", tt.body)
			res.JSON(t, &got)
			if res.Status != http.StatusBadRequest || got.Code != "MALFORMED_REQUEST" || !strings.Contains(got.Error, tt.want) {
				t.Errorf("got %d %s, want 400 MALFORMED_REQUEST saying %q", res.Status, res.Body, tt.want)
			}
		})
	}
}
