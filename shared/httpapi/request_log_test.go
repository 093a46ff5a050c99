package httpapi_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestRequestLogNamesTheOrganization reads the request log line of an
// authenticated request and of a public one: the first names the caller's
// organization (what an operator filters by), the second names none.
func TestRequestLogNamesTheOrganization(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 0)
	api, logs := loggedAPI(t, s, key)
	for _, tt := range []struct {
		name, path string
		want       string
	}{
		{"authenticated", "/api/campaigns/wallet", orgID},
		{"public", "/api/campaigns/openapi.json", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if res := api.Do("GET", tt.path, nil); res.Status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", tt.path, res.Status, res.Body)
			}
			var line map[string]any
			sc := bufio.NewScanner(strings.NewReader(logs.String()))
			for sc.Scan() {
				var l map[string]any
				if json.Unmarshal(sc.Bytes(), &l) == nil && l["msg"] == "request" && l["path"] == tt.path {
					line = l
				}
			}
			if line == nil {
				t.Fatalf("no request log line for %s in %s", tt.path, logs)
			}
			if got, _ := line["organizationId"].(string); got != tt.want {
				t.Errorf("request log organizationId = %q, want %q", got, tt.want)
			}
		})
	}
}
