package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/webhooks"
)

// clearSecrets are an endpoint's secrets as the model before sealing
// stored them: in clear, in secret and prevSecret.
type clearSecrets struct {
	Secret     string     `json:"secret"`
	PrevSecret string     `json:"prevSecret"`
	PrevUntil  *time.Time `json:"prevUntil"`
}

// writeLegacy rewrites an endpoint's item as the model before sealing
// wrote it: its secrets in clear (a current one and, within its overlap, a
// previous one) and no sealed attribute.
func writeLegacy(t *testing.T, s *dynamo.Store, orgID, webhookID string) clearSecrets {
	t.Helper()
	until := time.Now().Add(time.Hour).UTC()
	c := clearSecrets{PrevUntil: &until}
	var err error
	if c.Secret, err = webhooks.NewSecret(); err != nil {
		t.Fatal(err)
	}
	if c.PrevSecret, err = webhooks.NewSecret(); err != nil {
		t.Fatal(err)
	}
	old, err := attributevalue.MarshalMapWithOptions(c, func(o *attributevalue.EncoderOptions) { o.TagKey = "json" })
	if err != nil {
		t.Fatal(err)
	}
	it := webhookItem(t, s, orgID, webhookID)
	delete(it, "sealedSecret")
	delete(it, "sealedPrevSecret")
	for k, v := range old {
		it[k] = v
	}
	if _, err := testenv.Client(t).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(s.Table()), Item: it}); err != nil {
		t.Fatal(err)
	}
	return c
}

// failingSealer seals the first n secrets, then fails as KMS does when it
// throttles: the fault of a migration stopped halfway, which the KMS
// emulator cannot be made to produce on cue.
type failingSealer struct {
	next dynamo.Sealer
	n    atomic.Int64
}

func (f *failingSealer) Seal(ctx context.Context, plaintext []byte, owner string) (string, error) {
	if f.n.Add(-1) < 0 {
		return "", errors.New("ThrottlingException: rate exceeded")
	}
	return f.next.Seal(ctx, plaintext, owner)
}

// migratingStore runs the migration just before the first update of an
// endpoint it is asked to write, which it then writes as it was decided:
// an edit that read the endpoint before the migration sealed it.
type migratingStore struct {
	*dynamo.Store
	migrate func() error
	// first is what the first update came to.
	first error
	once  sync.Once
}

func (m *migratingStore) UpdateEndpoint(ctx context.Context, before, after webhook.Endpoint) error {
	first := false
	m.once.Do(func() { first = true })
	if !first {
		return m.Store.UpdateEndpoint(ctx, before, after)
	}
	if err := m.migrate(); err != nil {
		return err
	}
	m.first = m.Store.UpdateEndpoint(ctx, before, after)
	return m.first
}

// TestLegacyClearWebhookSecrets: endpoints whose secrets were stored in
// clear before sealing keep receiving messages that verify with both of
// their secrets; `admin migrate`'s webhook-secrets step seals them, and
// when it stops halfway (KMS throttling) the endpoints keep working and
// the next run seals the rest; a run after a complete one changes nothing,
// and the table then holds no secret in clear. An edit that read an
// endpoint before the migration sealed it does not write the clear secret
// back.
func TestLegacyClearWebhookSecrets(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	sealer := testenv.Secrets(t)
	s := testenv.Store(t, dynamo.WithSealer(sealer))
	org, key := testenv.Org(t, s, "legacy", 100)
	api := sealingAPI(t, s, key, &logLines{})
	rcs := []*receiver{newReceiver(t), newReceiver(t)}
	var legacy []clearSecrets
	for _, rc := range rcs {
		wh := createWebhook(t, api, rc.srv.URL, "recipient.created")
		legacy = append(legacy, writeLegacy(t, s, org, wh.Data.WebhookID))
	}
	campaign := createCampaign(t, api, 10)
	delivered := 0
	deliver := func(when string) {
		t.Helper()
		delivered++
		if res := api.Do("POST", addPath(campaign), recipientBody("r"+string(rune('a'+delivered))+"@example.com", "R")); res.Status != http.StatusOK {
			t.Fatalf("%s: add recipient: %d %s", when, res.Status, res.Body)
		}
		for i, rc := range rcs {
			got := rc.wait(t, delivered)[delivered-1]
			for _, secret := range []string{legacy[i].Secret, legacy[i].PrevSecret} {
				if err := standardVerify(t, secret, got); err != nil {
					t.Errorf("%s, endpoint %d: %v", when, i, err)
				}
			}
		}
	}
	deliver("in clear")

	failing := &failingSealer{next: sealer}
	failing.n.Store(2)
	halfway := dynamo.New(testenv.Client(t), s.Table(), dynamo.WithSealer(failing))
	res, err := halfway.Migrate(ctx, org, []string{"webhook-secrets"})
	if err == nil || len(res) != 1 || res[0].Changed != 1 {
		t.Fatalf("a migration whose third seal fails: %+v, %v; want one endpoint sealed and the error", res, err)
	}
	if found := scanFor(t, s.Table(), formsOf(t, legacy[0].Secret, legacy[0].PrevSecret)); len(found) > 0 {
		t.Errorf("the first endpoint's secrets are still in clear at %v", found)
	}
	if found := scanFor(t, s.Table(), formsOf(t, legacy[1].Secret)); len(found) == 0 {
		t.Error("the second endpoint's secret is sealed, but its seal failed")
	}
	deliver("halfway through the migration")

	for run, want := range []int{1, 0} {
		res, err := s.Migrate(ctx, org, []string{"webhook-secrets"})
		if err != nil || len(res) != 1 || res[0].Changed != want {
			t.Fatalf("migration run %d: %+v, %v; want %d endpoints sealed", run+2, res, err, want)
		}
	}
	if found := scanForSecrets(t, s.Table(), legacy[0].Secret, legacy[0].PrevSecret, legacy[1].Secret, legacy[1].PrevSecret); len(found) > 0 {
		t.Errorf("secrets in clear after the migration at %v", found)
	}
	deliver("after the migration")

	// An edit reads a clear endpoint, the migration seals it, the edit
	// writes: the write must not restore the clear secret; the edit is
	// refused and made again from what the migration left.
	third := newReceiver(t)
	wh := createWebhook(t, api, third.srv.URL, "recipient.created")
	clear := writeLegacy(t, s, org, wh.Data.WebhookID)
	racing := &migratingStore{Store: s, migrate: func() error {
		_, err := s.Migrate(ctx, org, []string{"webhook-secrets"})
		return err
	}}
	edit := webhook.NewApp(racing, webhook.Config{Sender: webhooks.NewSender(webhooks.Policy{AllowLocal: true}), Log: testenv.Quiet})
	desc := "edited during the migration"
	if _, err := edit.Patch(ctx, org, wh.Data.WebhookID, webhook.Patch{Description: &desc}); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(racing.first, webhook.ErrEndpointMoved) {
		t.Errorf("the edit read before the migration was written (%v), want it refused as moved", racing.first)
	}
	if found := scanFor(t, s.Table(), formsOf(t, clear.Secret, clear.PrevSecret)); len(found) > 0 {
		t.Errorf("the edit wrote the clear secret back: %v", found)
	}
	if it := webhookItem(t, s, org, wh.Data.WebhookID); attr(it, "description") != "edited during the migration" {
		t.Errorf("the edit was lost: %v", it["description"])
	}
	if res := api.Do("POST", "/api/campaigns/webhooks/"+wh.Data.WebhookID+"/test", nil); res.Status != http.StatusOK {
		t.Fatalf("test message: %d %s", res.Status, res.Body)
	}
	if err := standardVerify(t, clear.Secret, third.wait(t, 1)[0]); err != nil {
		t.Errorf("the migrated endpoint's test message: %v", err)
	}
}
