package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// operatorToken is the token the operator tests' servers accept.
const operatorToken = "operator-test-token"

// operatorEnv serves the tenant groups and the operator API over a fresh
// table, the operator API behind operatorToken.
func operatorEnv(t *testing.T) (*dynamo.Store, http.Handler) {
	t.Helper()
	s := testenv.Store(t)
	srv := httpapi.NewServer(s, service.New(s, service.Config{Logger: testenv.Quiet}), httpapi.Config{Logger: testenv.Quiet})
	srv.AllowOperator(operatorToken)
	return s, srv.Handler(slices.Concat(httpapi.Groups, []httpapi.Group{httpapi.Operator})...)
}

// opCall sends an operator request with token ("" sends none). The
// operator routes are not in the tenants' API document (docs/operator.md
// describes them), so this is a plain recorder, not testenv.API.
func opCall(t *testing.T, h http.Handler, token, method, path string, body any) testenv.Response {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, nil)
	if rd != nil {
		req = httptest.NewRequest(method, path, rd)
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set(httpapi.OperatorTokenHeader, token)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return testenv.Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// TestOperatorAPIRefusedWithoutItsToken: without the operator token, with
// a wrong one or with a tenant's admin API key, every operator route
// answers 401 and does nothing (no organization created, none suspended,
// no credits added); with the token the same requests work. Behind API
// Gateway (no token configured) a request the AWS_IAM authorizer did not
// sign in is refused, one it did is served.
func TestOperatorAPIRefusedWithoutItsToken(t *testing.T) {
	t.Parallel()
	s, h := operatorEnv(t)
	orgID, tenantKey := testenv.Org(t, s, "op-refused", 100)
	calls := []struct {
		method, path string
		body         any
	}{
		{"POST", "/api/operator/organizations", map[string]any{"organizationId": "op-intruder", "name": "Intruder", "credits": 100}},
		{"GET", "/api/operator/organizations", nil},
		{"POST", "/api/operator/organizations/" + orgID + "/suspend", nil},
		{"POST", "/api/operator/organizations/" + orgID + "/resume", nil},
		{"POST", "/api/operator/organizations/" + orgID + "/api-keys", map[string]any{"userId": "mallory"}},
		{"POST", "/api/operator/organizations/" + orgID + "/top-ups", map[string]any{"credits": 500, "requestId": "steal-1"}},
		{"PUT", "/api/operator/organizations/" + orgID + "/rate-limits", map[string]any{"rateLimits": map[string]int{"launch": 1000}}},
	}
	for _, c := range calls {
		for _, token := range []string{"", "wrong-token", tenantKey} {
			res := opCall(t, h, token, c.method, c.path, c.body)
			if token == tenantKey {
				req := httptest.NewRequest(c.method, c.path, nil)
				req.Header.Set("x-api-key", tenantKey)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				res = testenv.Response{Status: rec.Code, Body: rec.Body.Bytes()}
			}
			if res.Status != http.StatusUnauthorized {
				t.Errorf("%s %s with %q: %d %s, want 401", c.method, c.path, token, res.Status, res.Body)
			}
		}
	}
	ctx := context.Background()
	if _, err := s.Org(ctx, "op-intruder"); err == nil {
		t.Error("an unauthenticated request created an organization")
	}
	if w, _ := s.Wallet(ctx, orgID); w.Balance != 100 {
		t.Errorf("balance %d after refused top-ups, want 100", w.Balance)
	}
	if suspended, _ := s.OrgSuspended(ctx, orgID); suspended {
		t.Error("a refused request suspended the organization")
	}
	if keys, _ := s.Keys(ctx, orgID); len(keys) != 1 {
		t.Errorf("%d keys after a refused key issue, want the 1 it had", len(keys))
	}
	if res := opCall(t, h, operatorToken, "GET", "/api/operator/organizations", nil); res.Status != http.StatusOK {
		t.Fatalf("with the token: %d %s", res.Status, res.Body)
	}

	// Behind API Gateway: the function has no token and trusts only the
	// IAM authorizer's identity in the request context.
	lambda := httpadapter.NewV2(httpapi.NewServer(s, nil, httpapi.Config{Logger: testenv.Quiet}).Handler(httpapi.Operator)).ProxyWithContext
	ev := events.APIGatewayV2HTTPRequest{RawPath: "/api/operator/organizations", RequestContext: events.APIGatewayV2HTTPRequestContext{
		RequestID: "op-req", HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/api/operator/organizations"}}}
	res, err := lambda(ctx, ev)
	if err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("unsigned through API Gateway: %d %s %v, want 401", res.StatusCode, res.Body, err)
	}
	ev.Headers = map[string]string{httpapi.OperatorTokenHeader: operatorToken}
	if res, _ := lambda(ctx, ev); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a token where none is configured: %d, want 401", res.StatusCode)
	}
	ev.Headers = nil
	ev.RequestContext.Authorizer = &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
		IAM: &events.APIGatewayV2HTTPRequestContextAuthorizerIAMDescription{UserARN: "arn:aws:iam::123456789012:user/operator"}}
	if res, err := lambda(ctx, ev); err != nil || res.StatusCode != http.StatusOK {
		t.Errorf("signed in by the IAM authorizer: %d %s %v, want 200", res.StatusCode, res.Body, err)
	}
}

// TestOperatorRunsAnOrganization: the operator creates an organization,
// issues its first admin key (once: a second is 409), tops it up under a
// request id (a repeat, also concurrent, adds nothing; other credits under
// the same id are 422), sets its rate limits, suspends it (its key
// answers 403 ORGANIZATION_SUSPENDED and does nothing) and resumes it; the
// list shows it with its usage of the month, equal to what was done. The
// ledger sums to the balance.
func TestOperatorRunsAnOrganization(t *testing.T) {
	t.Parallel()
	s, h := operatorEnv(t)
	op := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		res := opCall(t, h, operatorToken, method, path, body)
		if res.Status != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, res.Status, res.Body, want)
		}
		var env struct {
			Data map[string]any `json:"data"`
		}
		res.JSON(t, &env)
		return env.Data
	}
	orgID := "op-" + testenv.Table(t)[len(testenv.Table(t))-6:]
	op("POST", "/api/operator/organizations", map[string]any{"organizationId": orgID, "name": "Initech", "credits": 1000}, http.StatusCreated)
	op("POST", "/api/operator/organizations", map[string]any{"organizationId": orgID, "name": "Again"}, http.StatusConflict)
	org := "/api/operator/organizations/" + orgID
	key := op("POST", org+"/api-keys", map[string]any{"userId": "peter"}, http.StatusCreated)
	secret, _ := key["key"].(string)
	if !gifting.WellFormedAPIKey(secret) || !slices.Equal(anyStrings(key["scopes"]), []string{"read", "write", "spend", "admin"}) {
		t.Fatalf("first key %v: want a key with every scope", key)
	}
	op("POST", org+"/api-keys", map[string]any{"userId": "peter"}, http.StatusConflict)
	tenant := testenv.HandlerAPI(t, h, secret)

	// The same top-up five times at once, then once more: added once.
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			res := opCall(t, h, operatorToken, "POST", org+"/top-ups", map[string]any{"credits": 250, "reason": "invoice 7", "requestId": "inv-7"})
			if res.Status != http.StatusCreated && res.Status != http.StatusOK {
				t.Errorf("top-up: %d %s", res.Status, res.Body)
			}
		})
	}
	wg.Wait()
	again := op("POST", org+"/top-ups", map[string]any{"credits": 250, "reason": "invoice 7", "requestId": "inv-7"}, http.StatusOK)
	if again["replayed"] != true || again["balance"] != float64(1250) {
		t.Errorf("repeated top-up answered %v; want replayed, balance 1250", again)
	}
	assertError(t, opCall(t, h, operatorToken, "POST", org+"/top-ups", map[string]any{"credits": 999, "reason": "invoice 7", "requestId": "inv-7"}),
		http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
	testenv.AssertLedgerBalanced(t, s, orgID)

	op("PUT", org+"/rate-limits", map[string]any{"rateLimits": map[string]int{"launch": 7}}, http.StatusOK)
	assertError(t, opCall(t, h, operatorToken, "PUT", org+"/rate-limits", map[string]any{"rateLimits": map[string]int{"launch": 0}}), http.StatusBadRequest, "VALIDATION_FAILED")
	if o, _ := s.Org(context.Background(), orgID); o.RateLimit(gifting.RateLaunch) != 7 {
		t.Errorf("launch limit %d, want 7", o.RateLimit(gifting.RateLaunch))
	}

	if res := tenant.Do("GET", "/api/campaigns/usage", nil); res.Status != http.StatusOK {
		t.Fatalf("the tenant's key before suspension: %d %s", res.Status, res.Body)
	}
	op("POST", org+"/suspend", nil, http.StatusOK)
	op("POST", org+"/suspend", nil, http.StatusOK) // twice is harmless
	lists := testenv.CountItems(t, s, orgID, "LIST#")
	assertError(t, tenant.Do("POST", "/api/campaigns/contact-lists", map[string]any{"name": "while suspended"}), http.StatusForbidden, "ORGANIZATION_SUSPENDED")
	assertError(t, tenant.Do("GET", "/api/campaigns/usage", nil), http.StatusForbidden, "ORGANIZATION_SUSPENDED")
	if n := testenv.CountItems(t, s, orgID, "LIST#"); n != lists {
		t.Errorf("a suspended organization's key wrote %d lists", n-lists)
	}
	page := op("GET", "/api/operator/organizations?limit=100", nil, http.StatusOK)
	if o := findOrg(page, orgID); o == nil || o["suspended"] != true {
		t.Errorf("list shows %v; want %s suspended", o, orgID)
	}
	op("POST", org+"/resume", nil, http.StatusOK)
	if res := tenant.Do("GET", "/api/campaigns/usage", nil); res.Status != http.StatusOK {
		t.Fatalf("the tenant's key after resuming: %d %s", res.Status, res.Body)
	}

	want, err := s.Usage(context.Background(), orgID, access.MonthOf(s.Now()))
	if err != nil {
		t.Fatal(err)
	}
	// The two calls of the tenant's key it served (those refused while
	// suspended did nothing and count nothing), the opening credits and
	// one top-up.
	if want.APICalls != 2 || want.CreditsToppedUp != 1250 {
		t.Errorf("usage %+v; want 2 API calls and 1250 credits topped up", want)
	}
	o := findOrg(op("GET", "/api/operator/organizations", nil, http.StatusOK), orgID)
	u, _ := o["usage"].(map[string]any)
	if o == nil || o["suspended"] != false || u["apiCalls"] != float64(want.APICalls) || u["creditsToppedUp"] != float64(1250) || u["month"] != want.Month {
		t.Errorf("list shows %v; want %s resumed with usage %+v", o, orgID, want)
	}
	assertError(t, opCall(t, h, operatorToken, "GET", "/api/operator/organizations?month=2026-13", nil), http.StatusBadRequest, "VALIDATION_FAILED")
	assertError(t, opCall(t, h, operatorToken, "POST", "/api/operator/organizations/no-such-org/suspend", nil), http.StatusNotFound, "NOT_FOUND")
}

// findOrg is the organization orgID of an operator list page's data.
func findOrg(data map[string]any, orgID string) map[string]any {
	items, _ := data["items"].([]any)
	for _, it := range items {
		if o, _ := it.(map[string]any); o["orgId"] == orgID {
			return o
		}
	}
	return nil
}

func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
