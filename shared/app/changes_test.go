package app_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/webhooks"
)

// TestWorkerDeliversStreamedChanges feeds the worker function's handler the
// DynamoDB stream event of shared/jobs/testdata (one change record of acme,
// as the event source mapping delivers it) and checks the record's message
// reaches acme's endpoint once, signed, even when the stream gives the
// record twice. The endpoint is created by another service with a sealer
// of its own, as the webhooks function is apart from the worker in AWS: the
// worker opens the secret through KMS.
func TestWorkerDeliversStreamedChanges(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../jobs/testdata/dynamodb-stream-event.json")
	if err != nil {
		t.Fatal(err)
	}
	s := testenv.Store(t)
	org, _ := testenv.Org(t, s, "acme", 0)
	queue := jobs.NewLocal(testenv.Quiet)
	svc := service.New(s, service.Config{Logger: testenv.Quiet, Jobs: testenv.Calls.Queue(queue), Webhooks: webhooks.Policy{AllowLocal: true}, Secrets: testenv.Secrets(t)})

	var mu sync.Mutex
	type request struct{ id, ts, sig, body string }
	var got []request
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, request{r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), string(body)})
		mu.Unlock()
	}))
	t.Cleanup(rc.Close)
	hooks := service.New(s, service.Config{Logger: testenv.Quiet, Webhooks: webhooks.Policy{AllowLocal: true}, Secrets: testenv.Secrets(t)})
	wh, err := hooks.Webhooks().Create(t.Context(), org, webhook.Input{URL: rc.URL + "/hooks", Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}

	handler := jobs.WithChanges(jobs.WorkerHandler(svc.RunJob, testenv.Calls.Queue(queue), func(context.Context) error { return nil }, svc.HandleMailEvents, testenv.Quiet), app.ChangeStreamHandler(svc))
	for range 2 { // the stream may give a record twice
		if res, err := handler(t.Context(), raw); err != nil || len(res.BatchItemFailures) != 0 {
			t.Fatalf("worker handler: %v, failures %v", err, res.BatchItemFailures)
		}
	}
	queue.Wait()

	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("the endpoint got %d requests, want the record's one message once", len(got))
	}
	r := got[0]
	if r.id != "01KAQ0Y8G0ZX3V5N7W9A1C3E5G.00" || !strings.Contains(r.body, `"type":"wallet.topped_up"`) {
		t.Errorf("delivered %s %s, want the fixture's wallet.topped_up message", r.id, r.body)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(wh.Secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(r.id + "." + r.ts + "." + r.body))
	if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); !strings.Contains(r.sig, want) {
		t.Errorf("signature %q does not verify with the endpoint's secret", r.sig)
	}
}

// TestDeploymentRefusesPrivateWebhookTargets: wired as a function is in a
// deployment (WEBHOOKS_ALLOW_LOCAL unset), creating an endpoint at a
// private, loopback or metadata address, or over http, is a validation
// error and saves nothing; the local runner's setting accepts loopback.
func TestDeploymentRefusesPrivateWebhookTargets(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	org, _ := testenv.Org(t, s, "deployed", 0)
	kms := testenv.KMSConfig(t)
	core := func(allowLocal bool) *app.Core {
		c, err := app.New(t.Context(), app.Config{TableName: s.Table(), Endpoint: os.Getenv("DYNAMODB_ENDPOINT"),
			PublicBaseURL: "https://gifts.example.com", WebhooksAllowLocal: allowLocal, KMSKeyID: kms.KMSKeyID, KMSEndpoint: kms.KMSEndpoint},
			app.WithSecrets(kmssecrets.New))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	deployed := core(false)
	for _, url := range []string{"https://127.0.0.1:8443/hooks", "https://10.0.0.7/hooks", "https://169.254.169.254/latest",
		"https://localhost/hooks", "http://hooks.example.com/"} {
		t.Run(url, func(t *testing.T) {
			_, err := deployed.Service.Webhooks().Create(t.Context(), org, webhook.Input{URL: url, Events: []string{"*"}})
			if gifting.ErrorCode(err) != gifting.CodeValidation {
				t.Errorf("create: %v, want VALIDATION_FAILED", err)
			}
		})
	}
	if ws, err := deployed.Service.Webhooks().Endpoints(t.Context(), org); err != nil || len(ws) != 0 {
		t.Errorf("endpoints after the refusals: %v, %v; want none", ws, err)
	}
	if _, err := core(true).Service.Webhooks().Create(t.Context(), org, webhook.Input{URL: "http://127.0.0.1:8080/hooks", Events: []string{"*"}}); err != nil {
		t.Errorf("local runner's setting: %v", err)
	}
}
