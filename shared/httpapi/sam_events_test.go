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

// TestSAMEvents pushes the events under events/ (made by `make events` with
// sam local generate-event, the ones `sam local invoke -e` takes) through
// the Lambda adapter every function's main uses, into the real handlers.
func TestSAMEvents(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "samlocal", 750)
	srv := httpapi.NewServer(s, service.New(s, service.Config{Logger: testenv.Quiet}), httpapi.Config{Logger: testenv.Quiet})

	cases := []struct {
		name   string
		file   string
		group  httpapi.Group
		key    string
		status int
		check  func(t *testing.T, data map[string]any)
	}{
		{"wallet", "get-wallet.json", httpapi.Recipients, key, 200, func(t *testing.T, data map[string]any) {
			if data["balance"] != float64(750) {
				t.Errorf("balance = %v, want the org's 750 credits", data["balance"])
			}
		}},
		{"create contact list", "create-contact-list.json", httpapi.Contacts, key, 201, func(t *testing.T, data map[string]any) {
			if data["name"] != "Launch guests" || data["listId"] == "" {
				t.Errorf("data %v: want the created list named Launch guests", data)
			}
		}},
		{"wallet without a key", "get-wallet.json", httpapi.Recipients, "", 401, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw, err := os.ReadFile("../../events/" + c.file)
			if err != nil {
				t.Fatal(err)
			}
			var ev events.APIGatewayV2HTTPRequest
			if err := json.Unmarshal([]byte(strings.ReplaceAll(string(raw), "{{API_KEY}}", c.key)), &ev); err != nil {
				t.Fatal(err)
			}
			res, err := httpadapter.NewV2(srv.Handler(c.group)).ProxyWithContext(context.Background(), ev)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d; body %s", res.StatusCode, c.status, res.Body)
			}
			if c.check == nil {
				return
			}
			var body struct {
				Data map[string]any `json:"data"`
			}
			if err := json.Unmarshal([]byte(res.Body), &body); err != nil {
				t.Fatalf("body %s: %v", res.Body, err)
			}
			c.check(t, body.Data)
		})
	}
}
