package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhooks"
)

// standardVerify checks r as a receiver using the Standard Webhooks
// reference library does: its headers, the timestamp within five minutes
// of now, and a v1 signature under secret.
func standardVerify(t *testing.T, secret string, r received) error {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("webhook-id", r.id)
	h.Set("webhook-timestamp", r.ts)
	h.Set("webhook-signature", r.sig)
	return wh.Verify(r.body, h)
}

// logLines is a log destination safe for concurrent handlers.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// sealingAPI is testenv.NewAPI with every log line of the service and the
// HTTP layer, at DEBUG, kept in logs, and the table's stream read into the
// deliveries.
func sealingAPI(t *testing.T, s *dynamo.Store, key string, logs *logLines) *testenv.API {
	t.Helper()
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	queue := jobs.NewLocal(log)
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: log, Jobs: queue,
		Webhooks: webhooks.Policy{AllowLocal: true}, Secrets: testenv.Secrets(t), Codes: testenv.CodeSecrets(t)})
	queue.Start(svc.RunJob)
	api := testenv.HandlerAPI(t, httpapi.NewServer(s, svc, httpapi.Config{Logger: log}).Handler(httpapi.Groups...), key)
	api.Jobs, api.Service = queue, svc
	testenv.StreamChanges(t, s, svc)
	return api
}

// secretForms are the spellings of a whsec_ secret that would give it
// away: itself, its base64 key material, and the key's bytes as URL-safe
// base64, hex and raw bytes.
func secretForms(t *testing.T, secret string) []string {
	t.Helper()
	material := strings.TrimPrefix(secret, "whsec_")
	raw, err := base64.StdEncoding.DecodeString(material)
	if err != nil || len(raw) != 32 {
		t.Fatalf("secret %q: %v", secret, err)
	}
	return []string{secret, material, base64.RawStdEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw),
		hex.EncodeToString(raw), string(raw)}
}

// scanForSecrets reads every item of the table and every attribute,
// nested ones too (maps, lists, sets, binary values), and returns where
// "whsec_" or a form of a secret appears.
func scanForSecrets(t *testing.T, table string, secrets ...string) []string {
	t.Helper()
	return scanFor(t, table, append([]string{"whsec_"}, formsOf(t, secrets...)...))
}

// formsOf are the secretForms of secrets.
func formsOf(t *testing.T, secrets ...string) []string {
	t.Helper()
	var forms []string
	for _, s := range secrets {
		forms = append(forms, secretForms(t, s)...)
	}
	return forms
}

// scanFor is scanForSecrets for any needles.
func scanFor(t *testing.T, table string, needles []string) []string {
	t.Helper()
	var found []string
	var walk func(where string, v types.AttributeValue)
	check := func(where, text string) {
		for _, n := range needles {
			if strings.Contains(text, n) {
				found = append(found, where)
				return
			}
		}
	}
	walk = func(where string, v types.AttributeValue) {
		switch v := v.(type) {
		case *types.AttributeValueMemberS:
			check(where, v.Value)
		case *types.AttributeValueMemberB:
			check(where, string(v.Value))
		case *types.AttributeValueMemberSS:
			check(where, strings.Join(v.Value, "\x00"))
		case *types.AttributeValueMemberBS:
			check(where, string(bytes.Join(v.Value, []byte{0})))
		case *types.AttributeValueMemberL:
			for i, e := range v.Value {
				walk(where+"["+strconv.Itoa(i)+"]", e)
			}
		case *types.AttributeValueMemberM:
			for k, e := range v.Value {
				check(where+"."+k, k)
				walk(where+"."+k, e)
			}
		}
	}
	items := 0
	p := dynamodb.NewScanPaginator(testenv.Client(t), &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range page.Items {
			items++
			key := attr(it, "PK") + " " + attr(it, "SK")
			for name, v := range it {
				walk(key+" "+name, v)
			}
		}
	}
	if items == 0 {
		t.Fatal("the scan read no item")
	}
	return found
}

// attr is a string attribute of an item, "" when it has none.
func attr(it map[string]types.AttributeValue, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// webhookItem reads an endpoint's item as stored.
func webhookItem(t *testing.T, s *dynamo.Store, orgID, webhookID string) map[string]types.AttributeValue {
	t.Helper()
	out, err := testenv.Client(t).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(s.Table()),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID},
			"SK": &types.AttributeValueMemberS{Value: "WEBHOOK#" + webhookID}}, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Item == nil {
		t.Fatalf("read webhook %s: %v (found %v)", webhookID, err, out != nil && out.Item != nil)
	}
	return out.Item
}

// TestWebhookSecretsSealedAtRest creates an endpoint, has a recipient's
// message delivered to a real receiver that verifies it as the Standard
// Webhooks library does, rotates the secret and has the next message
// delivered and verified with the new secret (and the old one, within the
// overlap); then it scans the whole table, every item and attribute, and
// finds neither secret in any form, and the service's and HTTP layer's
// log lines hold neither.
func TestWebhookSecretsSealedAtRest(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	org, key := testenv.Org(t, s, "sealed", 100)
	logs := &logLines{}
	api := sealingAPI(t, s, key, logs)
	rc := newReceiver(t)
	wh := createWebhook(t, api, rc.srv.URL+"/hooks", "recipient.created")
	campaign := createCampaign(t, api, 10)
	if res := api.Do("POST", addPath(campaign), recipientBody("ada@example.com", "Ada")); res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	if err := standardVerify(t, wh.Data.Secret, rc.wait(t, 1)[0]); err != nil {
		t.Errorf("the first message: %v", err)
	}

	var rotated webhookSecret
	res := api.Do("POST", "/api/campaigns/webhooks/"+wh.Data.WebhookID+"/rotate-secret", nil)
	res.JSON(t, &rotated)
	if res.Status != http.StatusOK || rotated.Data.Secret == wh.Data.Secret {
		t.Fatalf("rotate: %d %s", res.Status, res.Body)
	}
	if res := api.Do("POST", addPath(campaign), recipientBody("bob@example.com", "Bob")); res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	after := rc.wait(t, 2)[1]
	if err := standardVerify(t, rotated.Data.Secret, after); err != nil {
		t.Errorf("after the rotation, with the new secret: %v", err)
	}
	if err := standardVerify(t, wh.Data.Secret, after); err != nil {
		t.Errorf("after the rotation, with the old secret (within the overlap): %v", err)
	}

	if found := scanForSecrets(t, s.Table(), wh.Data.Secret, rotated.Data.Secret); len(found) > 0 {
		t.Errorf("secrets in clear in the table at %v", found)
	}
	it := webhookItem(t, s, org, wh.Data.WebhookID)
	for _, name := range []string{"sealedSecret", "sealedPrevSecret"} {
		if !strings.HasPrefix(attr(it, name), "sealed.v1.") {
			t.Errorf("the endpoint's %s is %q, want a sealed value", name, attr(it, name))
		}
	}
	for _, secret := range []string{wh.Data.Secret, rotated.Data.Secret} {
		for _, form := range secretForms(t, secret)[:2] {
			if strings.Contains(logs.String(), form) {
				t.Errorf("a log line holds a secret: %s", logs.String())
			}
		}
	}
}

// TestSealedSecretMovedToAnotherWebhook copies one endpoint's sealed
// secret onto another endpoint's item, of the same organization and of
// another one, as someone with write access to the table might: neither
// endpoint gets a message signed with it (their deliveries fail, saying
// why), the owner's endpoint still gets its messages, and rotating the
// damaged endpoint's secret mends it.
func TestSealedSecretMovedToAnotherWebhook(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "moved-a", 100)
	orgB, keyB := testenv.Org(t, s, "moved-b", 100)
	a, b := sealingAPI(t, s, keyA, &logLines{}), testenv.NewAPI(t, s, keyB)
	owner, sibling, foreign := newReceiver(t), newReceiver(t), newReceiver(t)
	whOwner := createWebhook(t, a, owner.srv.URL, "recipient.created")
	whSibling := createWebhook(t, a, sibling.srv.URL, "recipient.created")
	whForeign := createWebhook(t, b, foreign.srv.URL, "recipient.created")
	stolen := webhookItem(t, s, orgA, whOwner.Data.WebhookID)["sealedSecret"]
	for _, target := range []struct{ org, id string }{{orgA, whSibling.Data.WebhookID}, {orgB, whForeign.Data.WebhookID}} {
		it := webhookItem(t, s, target.org, target.id)
		it["sealedSecret"] = stolen
		if _, err := testenv.Client(t).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(s.Table()), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
	for _, api := range []*testenv.API{a, b} {
		campaign := createCampaign(t, api, 10)
		if res := api.Do("POST", addPath(campaign), recipientBody("ada@example.com", "Ada")); res.Status != http.StatusOK {
			t.Fatalf("add recipient: %d %s", res.Status, res.Body)
		}
	}
	if err := standardVerify(t, whOwner.Data.Secret, owner.wait(t, 1)[0]); err != nil {
		t.Errorf("the owner's endpoint: %v", err)
	}
	for _, tt := range []struct {
		name string
		api  *testenv.API
		id   string
		rc   *receiver
	}{{"same organization", a, whSibling.Data.WebhookID, sibling}, {"another organization", b, whForeign.Data.WebhookID, foreign}} {
		log := waitDeliveryErrors(t, tt.api, tt.id, 1)
		if log[0].Outcome != "failed" || !strings.Contains(log[0].Error, "signing secret cannot be read") {
			t.Errorf("%s: the delivery is %+v, want failed because the secret cannot be read", tt.name, log[0])
		}
		tt.rc.mu.Lock()
		if n := len(tt.rc.got); n != 0 {
			t.Errorf("%s: the endpoint got %d requests signed with another endpoint's secret", tt.name, n)
		}
		tt.rc.mu.Unlock()
	}

	var rotated webhookSecret
	res := a.Do("POST", "/api/campaigns/webhooks/"+whSibling.Data.WebhookID+"/rotate-secret", nil)
	res.JSON(t, &rotated)
	if res.Status != http.StatusOK {
		t.Fatalf("rotate: %d %s", res.Status, res.Body)
	}
	if res := a.Do("POST", "/api/campaigns/webhooks/"+whSibling.Data.WebhookID+"/test", nil); res.Status != http.StatusOK {
		t.Fatalf("test after the rotation: %d %s", res.Status, res.Body)
	}
	if err := standardVerify(t, rotated.Data.Secret, sibling.wait(t, 1)[0]); err != nil {
		t.Errorf("after the rotation: %v", err)
	}
}

// TestTestMessageFromAColdInstance: the test message of an endpoint
// created on one instance of the webhooks function, sent from another
// that has never seen its data key (a cold start, or an instance whose
// cache let it go), opens the sealed secret through KMS and is signed with
// the secret the creation returned. (The creating instance opens it from
// its cache: only another instance asks KMS, as the function's role must
// allow.)
func TestTestMessageFromAColdInstance(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "cold", 0)
	created, cold := testenv.NewAPI(t, s, key), testenv.NewAPI(t, s, key)
	rc := newReceiver(t)
	wh := createWebhook(t, created, rc.srv.URL+"/hooks", "recipient.created")
	if res := cold.Do("POST", "/api/campaigns/webhooks/"+wh.Data.WebhookID+"/test", nil); res.Status != http.StatusOK {
		t.Fatalf("test from the cold instance: %d %s", res.Status, res.Body)
	}
	if err := standardVerify(t, wh.Data.Secret, rc.wait(t, 1)[0]); err != nil {
		t.Errorf("the test message from the cold instance: %v", err)
	}
}

// deliveryError is an entry of the deliveries log with its error.
type deliveryError struct {
	Outcome string `json:"outcome"`
	Error   string `json:"error"`
}

// waitDeliveryErrors returns the deliveries log once it holds n attempts.
func waitDeliveryErrors(t *testing.T, api *testenv.API, webhookID string, n int) []deliveryError {
	t.Helper()
	waitAttempts(t, api, webhookID, n)
	var page struct {
		Data struct {
			Items []deliveryError `json:"items"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/webhooks/"+webhookID+"/deliveries", nil).JSON(t, &page)
	return page.Data.Items
}
