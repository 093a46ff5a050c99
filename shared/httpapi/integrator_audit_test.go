package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

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

// TestTruncatedBodyIsNotCalledEmpty: a JSON body cut short (a client
// that sent half of it, a shell quote lost) is answered 400 MALFORMED_REQUEST
// saying the JSON is not valid, not that the body is empty, which sends
// the integrator looking for the wrong mistake; an empty body still says
// it is empty.
func TestTruncatedBodyIsNotCalledEmpty(t *testing.T) {
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "truncated-body", 0)
	api := testenv.NewAPI(t, s, key)
	for _, tt := range []struct {
		name, body, want string
	}{
		{"an object never closed", `{"name":"Leads"`, "not valid JSON"},
		{"a key without its value", `{"name":`, "not valid JSON"},
		{"an open brace alone", `{`, "not valid JSON"},
		{"an array never closed", `{"name":"Leads","tags":["a",`, "not valid JSON"},
		{"an empty body", ``, "empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got struct {
				Code  string `json:"code"`
				Error string `json:"error"`
			}
			res := api.Do("POST", "/api/campaigns/contact-lists", tt.body)
			res.JSON(t, &got)
			if res.Status != http.StatusBadRequest || got.Code != "MALFORMED_REQUEST" || !strings.Contains(got.Error, tt.want) {
				t.Errorf("got %d %s, want 400 MALFORMED_REQUEST saying %q", res.Status, res.Body, tt.want)
			}
		})
	}
}

// TestWebhookSameChangeTwiceIsDeliveredOnce: the stream may give a change
// record again (at-least-once). Given again, its messages reach the
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
	clk.add(dynamo.FeedLag + time.Second)
	var feed struct {
		Data struct {
			Items []json.RawMessage `json:"items"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/changes", nil).JSON(t, &feed)
	if len(feed.Data.Items) != 2 {
		t.Fatalf("the feed holds %d messages, want 2", len(feed.Data.Items))
	}
	for range 2 {
		if err := api.Service.DeliverChanges(t.Context(), org, feed.Data.Items); err != nil {
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
