package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestRequestLogKeepsPersonalDataInPathsOut: an integrator who looks a
// contact up by its email or name in the path (a 404: ids are not emails)
// must not write that email or name into the request log, which keeps
// every path. The line is still there, with the route's words and ids.
func TestRequestLogKeepsPersonalDataInPathsOut(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api, logs := loggedAPI(t, s, key)
	for _, tt := range []struct {
		name, method, segment string
		personal              []string
	}{
		{"email as a contact id", "GET", "ada.lovelace@secret-mail.org", []string{"lovelace", "secret-mail"}},
		{"full name as a contact id", "DELETE", "Ada Lovelace", []string{"Lovelace"}},
		{"phone number as a contact id", "PATCH", "+44 7700 900123", []string{"7700", "900123"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := "/api/campaigns/contacts/" + url.PathEscape(tt.segment)
			var body any
			if tt.method == "PATCH" {
				body = map[string]any{"firstName": "Ada"}
			}
			if res := api.Do(tt.method, path, body); res.Status != http.StatusNotFound {
				t.Fatalf("%s %s: %d %s, want 404", tt.method, path, res.Status, res.Body)
			}
			out := logs.String()
			for _, p := range tt.personal {
				if strings.Contains(out, p) {
					t.Errorf("the log holds %q of %q: %s", p, tt.segment, out)
				}
			}
			if !strings.Contains(out, `"method":"`+tt.method+`","path":"/api/campaigns/contacts/…(`) {
				t.Errorf("no request line for %s with the segment's size in its place: %s", tt.method, out)
			}
		})
	}
}
