package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
)

// The delivery's rules through the API and the stream: a receiver that
// answers 410 Gone disables its endpoint, a change record given twice is
// delivered once, and a delivery racing its endpoint's DELETE stops.

// TestWebhookGoneDisablesTheEndpoint: a receiver answering 410 Gone says
// it wants no more webhooks (Standard Webhooks: the sender should disable
// the endpoint and stop sending). The message is not retried, the endpoint
// is disabled at once with a reason, and nothing more reaches it.
func TestWebhookGoneDisablesTheEndpoint(t *testing.T) {
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	_, key := testenv.Org(t, s, "hooks-gone", 100)
	api := testenv.NewAPI(t, s, key)
	testenv.StreamChanges(t, s, api.Service)
	rc := newReceiver(t, http.StatusGone)
	wh := createWebhook(t, api, rc.srv.URL, "recipient.created")
	campaign := createCampaign(t, api, 10)
	if res := api.Do("POST", addPath(campaign), recipientBody("ada@example.com", "Ada")); res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	rc.wait(t, 1)
	log := waitAttempts(t, api, wh.Data.WebhookID, 1)
	if a := log[0]; a.Outcome != "failed" || a.StatusCode != http.StatusGone {
		t.Errorf("the attempt is %+v, want failed with 410 and no retry", a)
	}
	var got struct {
		Data struct {
			Enabled        bool   `json:"enabled"`
			DisabledReason string `json:"disabledReason"`
		} `json:"data"`
	}
	// The endpoint is disabled just after the attempt is recorded.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		api.Do("GET", "/api/campaigns/webhooks/"+wh.Data.WebhookID, nil).JSON(t, &got)
		if !got.Data.Enabled || time.Now().After(deadline) {
			break
		}
	}
	if got.Data.Enabled || got.Data.DisabledReason == "" {
		t.Errorf("the endpoint is enabled %v (reason %q), want disabled with a reason", got.Data.Enabled, got.Data.DisabledReason)
	}
	// Neither the retry schedule nor a new change reaches it.
	if res := api.Do("POST", addPath(campaign), recipientBody("bob@example.com", "Bob")); res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	for _, d := range []time.Duration{5 * time.Second, 5 * time.Minute} {
		clk.add(d)
		if err := api.Scheduler.Tick(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond) // time for a wrong request to arrive
	if n := len(rc.wait(t, 1)); n != 1 {
		t.Errorf("the receiver got %d requests after answering 410, want 1", n)
	}
}

// TestWebhookSameChangeTwiceIsDeliveredOnce: the stream may give a change
// record again (at-least-once). Given again, twice, its messages reach the
// receiver no second time, and what arrived carries the message ids the
// change feed holds, one request per message.
func TestWebhookSameChangeTwiceIsDeliveredOnce(t *testing.T) {
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	org, key := testenv.Org(t, s, "hooks-twice", 100)
	api := testenv.NewAPI(t, s, key)
	testenv.StreamChanges(t, s, api.Service)
	rc := newReceiver(t)
	createWebhook(t, api, rc.srv.URL, "*")
	campaign := createCampaign(t, api, 10)
	if res := api.Do("POST", addPath(campaign), recipientBody("ada@example.com", "Ada")); res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	first := rc.wait(t, 2) // recipient.created and wallet.debited
	clk.add(webhook.FeedLag + time.Second)
	var feed struct {
		Data struct {
			Items []json.RawMessage `json:"items"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/changes", nil).JSON(t, &feed)
	if len(feed.Data.Items) != 2 {
		t.Fatalf("the feed holds %d messages, want 2", len(feed.Data.Items))
	}
	recs := testenv.ChangeRecords(t, s, org)
	if len(recs) != 1 {
		t.Fatalf("%d change records, want the add-recipient's one", len(recs))
	}
	for range 2 {
		if err := api.Service.Webhooks().Deliver(t.Context(), recs[0]); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond) // time for a wrong second request to arrive
	got := rc.wait(t, 2)
	var ids, want []string
	for _, r := range got {
		ids = append(ids, r.id)
	}
	for _, raw := range feed.Data.Items {
		var m message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		want = append(want, m.ID)
	}
	slices.Sort(ids)
	slices.Sort(want)
	if len(got) != len(first) || !slices.Equal(ids, want) {
		t.Errorf("the receiver got webhook-ids %v, want each of the feed's %v once", ids, want)
	}
}

// TestWebhookDeleteRacingDelivery: an endpoint's DELETE races the start
// and first attempt of a delivery to it (the receiver, on loopback, answers 500 in
// even rounds so the delivery would be retried, 200 in odd ones). The
// DELETE is 200, the endpoint stays gone (no late write recreates it), and
// once the retries' delays have passed no delivery is still due and none
// reached the receiver after its first attempt: the delivery stopped or
// completed.
func TestWebhookDeleteRacingDelivery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	orgID, key := testenv.Org(t, s, "hooks-race", 0)
	api := testenv.NewAPI(t, s, key)
	receivers := make([]*receiver, raceRounds)
	for round := range raceRounds {
		answer := http.StatusOK
		if round%2 == 0 {
			answer = http.StatusInternalServerError
		}
		receivers[round] = newReceiver(t, answer)
		w := createWebhook(t, api, receivers[round].srv.URL, "*")
		rec := webhook.Record{OrgID: orgID, Messages: []webhook.Message{{ID: fmt.Sprintf("msg_race%02d", round),
			Type: "recipient.created", OrgID: orgID, Data: webhook.Snapshot("{}")}}}
		var del testenv.Response
		together(
			func() { del = api.Do("DELETE", "/api/campaigns/webhooks/"+w.Data.WebhookID, nil) },
			func() {
				// Staggered starts, so the delivery reads the endpoint
				// before, during and after its deletion.
				time.Sleep(time.Duration(round%5) * time.Millisecond)
				if err := api.Service.Webhooks().Deliver(ctx, rec); err != nil {
					t.Errorf("round %d: delivery racing the endpoint's DELETE: %v", round, err)
				}
			},
		)
		if del.Status != http.StatusOK {
			t.Fatalf("round %d: DELETE racing a delivery: %d %s; want 200", round, del.Status, del.Body)
		}
		if res := api.Do("GET", "/api/campaigns/webhooks/"+w.Data.WebhookID, nil); res.Status != http.StatusNotFound {
			t.Errorf("round %d: the deleted endpoint after the delivery: %d %s; want 404", round, res.Status, res.Body)
		}
	}
	// Every retry's delay passes, with a tick after each.
	for _, d := range append(slices.Clone(webhook.Delays), time.Hour) {
		clk.add(d + dynamo.DueLease)
		if err := api.Scheduler.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		api.Jobs.Wait()
	}
	eps, err := s.Endpoints(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eps {
		t.Errorf("endpoint %s (%s) exists after every endpoint was deleted", e.ID, e.URL)
	}
	due, err := s.DueItems(ctx, clk.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range due {
		t.Errorf("still due after the endpoint's deletion and every retry delay: %+v", d)
	}
	sent := 0
	for round, rc := range receivers {
		rc.mu.Lock()
		n := len(rc.got)
		rc.mu.Unlock()
		if n > 1 {
			t.Errorf("round %d: the deleted endpoint's receiver got %d requests; want at most the first attempt", round, n)
		}
		sent += n
	}
	t.Logf("%d of %d deliveries read their endpoint before its DELETE and made their first attempt", sent, raceRounds)
}
