package httpapi_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// loadEvent reads an API Gateway v2 event from testdata, putting key in
// place of {{API_KEY}}.
func loadEvent(t *testing.T, name, key string) events.APIGatewayV2HTTPRequest {
	t.Helper()
	raw, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(raw), "{{API_KEY}}", key)), &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestThroughLambdaAdapter runs API Gateway v2 events through the same
// adapter the catalog function's main uses, into the real handler.
func TestThroughLambdaAdapter(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	h := httpapi.NewServer(s, service.New(s, service.Config{Logger: testenv.Quiet}), httpapi.Config{Logger: testenv.Quiet}).Handler(httpapi.Catalog)
	proxy := httpadapter.NewV2(h).ProxyWithContext

	t.Run("list gifts", func(t *testing.T) {
		res, err := proxy(context.Background(), loadEvent(t, "list-gifts.json", key))
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != 200 || res.Headers["Content-Type"] != "application/json" {
			t.Fatalf("status %d, headers %v; body %s", res.StatusCode, res.Headers, res.Body)
		}
		if got := res.Headers["X-Request-Id"]; got != "Jd8b1iNfIAMEVnQ=" {
			t.Errorf("X-Request-Id = %q, want API Gateway's request id", got)
		}
		var page struct {
			Data  []map[string]any `json:"data"`
			Limit int              `json:"limit"`
			Total int              `json:"total"`
		}
		if err := json.Unmarshal([]byte(res.Body), &page); err != nil {
			t.Fatal(err)
		}
		if page.Limit != 2 || len(page.Data) != 2 || page.Total < 2 || page.Data[0]["isDelightloop"] != true {
			t.Errorf("body %s: want 2 catalog gifts", res.Body)
		}
	})
	t.Run("no key", func(t *testing.T) {
		res, err := proxy(context.Background(), loadEvent(t, "get-gift-no-key.json", ""))
		if err != nil {
			t.Fatal(err)
		}
		want := `{"success":false,"statusCode":401,"message":"Unauthorized","error":"Invalid or missing API key"}`
		if res.StatusCode != 401 || strings.TrimSpace(res.Body) != want {
			t.Errorf("got %d %s, want 401 %s", res.StatusCode, res.Body, want)
		}
	})
}
