package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The receiver takes a delivery signed with the organization's secret, refuses a forged one, and
// refuses the first attempt of about 2 % of the messages (the same ones for the same seed), then takes
// their retry.
func TestReceiverVerifiesAndRefusesSome(t *testing.T) {
	r, err := newReceiver(7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.close)
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	if err := r.setSecret("acme", secret); err != nil {
		t.Fatal(err)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	send := func(id string, forge bool) int {
		t.Helper()
		body := []byte(`{"id":"` + id + `","type":"webhook.test","organizationId":"acme","data":{}}`)
		now := time.Now()
		sig, err := wh.Sign(id, now, body)
		if err != nil {
			t.Fatal(err)
		}
		if forge {
			sig = "v1,bm90IHRoZSBzaWduYXR1cmU="
		}
		req, _ := http.NewRequest(http.MethodPost, r.url+"acme", bytes.NewReader(body))
		req.Header.Set("webhook-id", id)
		req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
		req.Header.Set("webhook-signature", sig)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}

	if got := send("forged.00", true); got != http.StatusUnauthorized {
		t.Errorf("a forged signature: %d, want 401", got)
	}
	refused := 0
	for i := range 1000 {
		id := fmt.Sprintf("MSG%04d.00", i)
		if send(id, false) == http.StatusInternalServerError {
			refused++
			if got := send(id, false); got != http.StatusNoContent {
				t.Fatalf("the retry of refused %s: %d, want 204", id, got)
			}
		}
	}
	if refused < 5 || refused > 40 {
		t.Errorf("%d of 1000 first attempts refused, want about 20", refused)
	}
	if got := len(r.received("acme")); got != 1000 {
		t.Errorf("%d messages received, want 1000", got)
	}
	if _, _, bad := r.stats(); len(bad) != 1 {
		t.Errorf("deliveries that did not verify: %q, want the forged one", bad)
	}
	again := &receiver{seed: 7}
	for i := range 1000 {
		id := fmt.Sprintf("MSG%04d.00", i)
		if again.refuses(id) != r.refused[id] {
			t.Fatalf("message %s: refused %v by one receiver of seed 7, %v by another", id, r.refused[id], again.refuses(id))
		}
	}
}
