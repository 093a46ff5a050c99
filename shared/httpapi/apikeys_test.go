package httpapi_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/testenv"
)

// apiKey is a key as the API shows it.
type apiKey struct {
	KeyID      string   `json:"keyId"`
	Name       string   `json:"name"`
	Prefix     string   `json:"prefix"`
	Scopes     []string `json:"scopes"`
	CreatedBy  string   `json:"createdBy"`
	LastUsedAt *string  `json:"lastUsedAt"`
	RevokedAt  *string  `json:"revokedAt"`
	Key        string   `json:"key"`
}

// newKey creates a key through the API with api's key.
func newKey(t *testing.T, api *testenv.API, name string, scopes ...string) apiKey {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/api-keys", map[string]any{"name": name, "scopes": scopes})
	if res.Status != http.StatusCreated {
		t.Fatalf("create key %s: %d %s", name, res.Status, res.Body)
	}
	var env struct{ Data apiKey }
	res.JSON(t, &env)
	return env.Data
}

// assertScopeRefused checks a 403 INSUFFICIENT_SCOPE naming scope.
func assertScopeRefused(t *testing.T, res testenv.Response, scope string) {
	t.Helper()
	var body struct {
		Code    string            `json:"code"`
		Details map[string]string `json:"details"`
	}
	if res.Status != http.StatusForbidden {
		t.Fatalf("status %d, want 403: %s", res.Status, res.Body)
	}
	res.JSON(t, &body)
	if body.Code != "INSUFFICIENT_SCOPE" || body.Details["scope"] != scope {
		t.Fatalf("body %s; want INSUFFICIENT_SCOPE naming %s", res.Body, scope)
	}
}

// TestAPIKeysATenantManages: an admin key makes a read-only key, which is
// shown once, reads, is refused a write (403, nothing written) and the
// making of keys; the list shows both keys with prefix, scopes and last
// use, never a secret; a key grants no more than it holds; revoked, the
// key answers 401; the organization's last admin key cannot revoke itself;
// another organization's key is 404.
func TestAPIKeysATenantManages(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "keys", 0)
	_, otherKey := testenv.Org(t, s, "other-keys", 0)
	admin := testenv.NewAPI(t, s, key)

	reader := newKey(t, admin, "dashboard", "read")
	if !strings.HasPrefix(reader.Key, reader.Prefix) || len(reader.Prefix) != len(gifting.APIKeyPrefix)+gifting.APIKeyShownChars || !slices.Equal(reader.Scopes, []string{"read"}) {
		t.Fatalf("new key %+v: want its secret starting with its prefix and scopes [read]", reader)
	}
	ro := admin.WithKey(reader.Key)
	if res := ro.Do("GET", "/api/campaigns/contact-lists", nil); res.Status != http.StatusOK {
		t.Fatalf("a read key reading: %d %s", res.Status, res.Body)
	}
	before := testenv.CountItems(t, s, orgID, "LIST#")
	assertScopeRefused(t, ro.Do("POST", "/api/campaigns/contact-lists", map[string]any{"name": "nope"}), "write")
	if after := testenv.CountItems(t, s, orgID, "LIST#"); after != before {
		t.Errorf("a refused write wrote %d lists", after-before)
	}
	assertScopeRefused(t, ro.Do("POST", "/api/campaigns/api-keys", map[string]any{"name": "x", "scopes": []string{"read"}}), "admin")

	// A key that holds write and admin cannot make a key that spends.
	writer := admin.WithKey(newKey(t, admin, "ops", "write", "admin").Key)
	assertScopeRefused(t, writer.Do("POST", "/api/campaigns/api-keys", map[string]any{"name": "x", "scopes": []string{"write", "spend"}}), "spend")
	if res := writer.Do("POST", "/api/campaigns/api-keys", map[string]any{"name": "", "scopes": []string{"root"}}); res.Status != http.StatusBadRequest {
		t.Errorf("a key without a name and with an unknown scope: %d %s, want 400", res.Status, res.Body)
	}

	res := admin.Do("GET", "/api/campaigns/api-keys", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("list: %d %s", res.Status, res.Body)
	}
	if strings.Contains(string(res.Body), reader.Key) || strings.Contains(string(res.Body), key) {
		t.Fatal("the key list shows a secret")
	}
	var list struct{ Data struct{ Items []apiKey } }
	res.JSON(t, &list)
	var found *apiKey
	for i, k := range list.Data.Items {
		if k.KeyID == reader.KeyID {
			found = &list.Data.Items[i]
		}
	}
	if len(list.Data.Items) != 3 || found == nil || found.LastUsedAt == nil || found.CreatedBy == "" || found.Prefix != reader.Prefix {
		t.Fatalf("list %+v: want the first key, the reader (used, with its creator and prefix) and ops", list.Data.Items)
	}
	if first := list.Data.Items[0]; !slices.Equal(first.Scopes, []string{"read", "write", "spend", "admin"}) {
		t.Errorf("the key made before scopes shows %v, want all four", first.Scopes)
	}

	if res := admin.Do("DELETE", "/api/campaigns/api-keys/"+reader.KeyID, nil); res.Status != http.StatusOK {
		t.Fatalf("revoke: %d %s", res.Status, res.Body)
	}
	assertUnauthorized(t, ro.Do("GET", "/api/campaigns/contact-lists", nil))
	if res := testenv.NewAPI(t, s, otherKey).Do("DELETE", "/api/campaigns/api-keys/"+reader.KeyID, nil); res.Status != http.StatusNotFound {
		t.Errorf("another organization revoking the key: %d, want 404", res.Status)
	}

	// The first key and ops hold admin: ops may go, then the first key is
	// the last admin key and cannot revoke itself.
	if res := writer.Do("DELETE", "/api/campaigns/api-keys/"+list.Data.Items[2].KeyID, nil); res.Status != http.StatusOK {
		t.Fatalf("ops revoking itself beside another admin key: %d %s", res.Status, res.Body)
	}
	if res := admin.Do("DELETE", "/api/campaigns/api-keys/"+list.Data.Items[0].KeyID, nil); res.Status != http.StatusConflict {
		t.Fatalf("the last admin key revoking itself: %d %s, want 409", res.Status, res.Body)
	}
	if res := admin.Do("GET", "/api/campaigns/api-keys", nil); res.Status != http.StatusOK {
		t.Fatalf("the last admin key stopped working: %d", res.Status)
	}
}

// TestEveryRouteNeedsItsScope: for every authenticated route of every
// group, a key holding every scope but the one the route needs is refused
// with 403 naming that scope, before anything is read or written (the
// organization's partition holds as many items after as before).
func TestEveryRouteNeedsItsScope(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "scoped", 0)
	admin := testenv.NewAPI(t, s, key)
	without := map[gifting.Scope]*testenv.API{}
	for _, scope := range gifting.Scopes {
		var others []string
		for _, o := range gifting.Scopes {
			if o != scope {
				others = append(others, string(o))
			}
		}
		without[scope] = admin.WithKey(newKey(t, admin, "all but "+string(scope), others...).Key)
	}
	before := allItems(t, s, orgID)
	n := 0
	for _, g := range httpapi.Groups {
		for pattern, scope := range httpapi.RouteScopes(g) {
			method, path, _ := strings.Cut(pattern, " ")
			for _, name := range []string{"{campaignId}", "{recipientId}", "{listId}", "{contactId}", "{giftId}", "{templateId}",
				"{icpId}", "{audienceId}", "{id}", "{webhookId}", "{keyId}"} {
				path = strings.ReplaceAll(path, name, "x01")
			}
			t.Run(pattern, func(t *testing.T) {
				assertScopeRefused(t, without[scope].Do(method, path, nil), string(scope))
			})
			n++
		}
	}
	if n < 70 {
		t.Errorf("%d routes checked; the groups serve more", n)
	}
	if after := allItems(t, s, orgID); after != before {
		t.Errorf("refused calls changed the organization's items: %d, then %d", before, after)
	}
}

// allItems counts the items of orgID's partition (every sort key starts
// with a capital letter).
func allItems(t *testing.T, s *dynamo.Store, orgID string) int {
	t.Helper()
	n := 0
	for c := 'A'; c <= 'Z'; c++ {
		n += testenv.CountItems(t, s, orgID, string(c))
	}
	return n
}

// TestOpenAPINamesEachRouteScope: the document names the scope each
// operation needs (x-required-scope) as the routes enforce it, and lists
// the 403 of a key without it, so an integrator can make a key of the
// least scopes its calls need.
func TestOpenAPINamesEachRouteScope(t *testing.T) {
	t.Parallel()
	doc := testenv.Contract(t)
	for _, g := range httpapi.Groups {
		for pattern, scope := range httpapi.RouteScopes(g) {
			method, path, _ := strings.Cut(pattern, " ")
			item := doc.Paths.Find(path)
			if item == nil || item.GetOperation(method) == nil {
				t.Errorf("%s is not documented", pattern)
				continue
			}
			op := item.GetOperation(method)
			if got := op.Extensions["x-required-scope"]; got != string(scope) {
				t.Errorf("%s: x-required-scope %v, the route needs %s", pattern, got, scope)
			}
			if op.Responses.Status(http.StatusForbidden) == nil {
				t.Errorf("%s: no 403 documented", pattern)
			}
		}
	}
}
