package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestWebhookSlowReceiverHoldsBackNoOtherOrganization: one organization's
// receiver that does not answer (its attempt waits for the 10 s timeout)
// delays no other organization's webhooks, which arrive while it hangs.
func TestWebhookSlowReceiverHoldsBackNoOtherOrganization(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, slowKey := testenv.Org(t, s, "hooks-slow", 100)
	_, fastKey := testenv.Org(t, s, "hooks-fast", 100)
	slowAPI, fastAPI := testenv.NewAPI(t, s, slowKey), testenv.NewAPI(t, s, fastKey)
	testenv.StreamChanges(t, s, slowAPI.Service)

	release, arrived := make(chan struct{}), make(chan struct{}, 10)
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hang.Close() })
	createWebhook(t, slowAPI, hang.URL, "recipient.created")
	fast := newReceiver(t)
	createWebhook(t, fastAPI, fast.srv.URL, "recipient.created")

	if res := slowAPI.Do("POST", addPath(createCampaign(t, slowAPI, 10)), recipientBody("ada@example.com", "Ada")); res.Status != http.StatusOK {
		t.Fatalf("add recipient (slow organization): %d %s", res.Status, res.Body)
	}
	select {
	case <-arrived: // the slow organization's attempt is now hanging
	case <-time.After(5 * time.Second):
		t.Fatal("the slow organization's webhook was never attempted")
	}
	campaign := createCampaign(t, fastAPI, 10)
	start := time.Now()
	for _, who := range []string{"bob", "cy"} {
		if res := fastAPI.Do("POST", addPath(campaign), recipientBody(who+"@example.com", who)); res.Status != http.StatusOK {
			t.Fatalf("add recipient (fast organization): %d %s", res.Status, res.Body)
		}
	}
	fast.wait(t, 2)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the other organization's webhooks took %s, held back by the hanging receiver", took)
	}
}
