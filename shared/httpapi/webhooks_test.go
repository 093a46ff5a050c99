package httpapi_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
)

// received is one request a receiver got.
type received struct {
	id, ts, sig string
	body        []byte
}

// receiver is a real HTTP endpoint on a loopback port that answers with
// the statuses of answers in turn (200 once they run out).
type receiver struct {
	mu      sync.Mutex
	got     []received
	answers []int
	srv     *httptest.Server
}

func newReceiver(t *testing.T, answers ...int) *receiver {
	t.Helper()
	rc := &receiver{answers: answers}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp"), r.Header.Get("webhook-signature"), body})
		status := http.StatusOK
		if len(rc.answers) > 0 {
			status, rc.answers = rc.answers[0], rc.answers[1:]
		}
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// wait returns the requests once there are at least n (failing after 10 s).
func (rc *receiver) wait(t *testing.T, n int) []received {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		rc.mu.Lock()
		got := slices.Clone(rc.got)
		rc.mu.Unlock()
		if len(got) >= n {
			return got
		}
	}
	t.Fatalf("the receiver did not get %d requests in 10 s", n)
	return nil
}

// verifies is an independent Standard Webhooks check: some v1 signature
// of the header is the HMAC-SHA256 of id.ts.body under the secret.
func verifies(t *testing.T, secret string, r received) bool {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(r.id + "." + r.ts + "." + string(r.body)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	return slices.Contains(strings.Fields(r.sig), want)
}

// hookClock is a test clock the store and the deliveries follow.
type hookClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *hookClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *hookClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// webhookSecret is the data of a create or a rotation.
type webhookSecret struct {
	Data struct {
		WebhookID string `json:"webhookId"`
		Secret    string `json:"secret"`
	} `json:"data"`
}

func createWebhook(t *testing.T, api *testenv.API, url string, events ...string) webhookSecret {
	t.Helper()
	var w webhookSecret
	res := api.Do("POST", "/api/campaigns/webhooks", map[string]any{"url": url, "events": events})
	res.JSON(t, &w)
	if res.Status != http.StatusCreated || !strings.HasPrefix(w.Data.Secret, "whsec_") {
		t.Fatalf("create webhook: %d %s", res.Status, res.Body)
	}
	return w
}

// message is a delivered body.
type message struct {
	ID             string          `json:"id"`
	Type           string          `json:"type"`
	OrganizationID string          `json:"organizationId"`
	Data           json.RawMessage `json:"data"`
}

func TestWebhookDelivery(t *testing.T) {
	t.Run("a recipient added through the API arrives signed; a 402 sends nothing", func(t *testing.T) {
		t.Parallel()
		s := testenv.Store(t)
		org, key := testenv.Org(t, s, "hooks-signed", 15)
		api := testenv.NewAPI(t, s, key)
		testenv.StreamChanges(t, s, api.Service)
		rc := newReceiver(t)
		wh := createWebhook(t, api, rc.srv.URL+"/hooks", "recipient.created")
		campaign := createCampaign(t, api, 10)
		res := api.Do("POST", addPath(campaign), recipientBody("ada@example.com", "Ada"))
		if res.Status != http.StatusOK {
			t.Fatalf("add recipient: %d %s", res.Status, res.Body)
		}
		// 5 credits left: this one is refused with 402 and must produce
		// no message.
		if res := api.Do("POST", addPath(campaign), recipientBody("bob@example.com", "Bob")); res.Status != http.StatusPaymentRequired {
			t.Fatalf("second add: %d %s, want 402", res.Status, res.Body)
		}
		got := rc.wait(t, 1)[0]
		if !verifies(t, wh.Data.Secret, got) {
			t.Errorf("the signature %q does not verify", got.sig)
		}
		var m message
		if err := json.Unmarshal(got.body, &m); err != nil {
			t.Fatal(err)
		}
		if m.Type != "recipient.created" || m.OrganizationID != org || m.ID != got.id || !strings.Contains(string(m.Data), "ada@example.com") {
			t.Errorf("got %s (webhook-id %s), want Ada's recipient.created", got.body, got.id)
		}
		time.Sleep(500 * time.Millisecond) // time for a wrong second message to arrive
		if n := len(rc.wait(t, 1)); n != 1 {
			t.Errorf("the receiver got %d messages, want 1 (the 402 must send none)", n)
		}
	})

	t.Run("a receiver answering 500 twice gets the same message three times", func(t *testing.T) {
		t.Parallel()
		clk := &hookClock{now: time.Now()}
		s := testenv.Store(t, dynamo.WithClock(clk.Now))
		_, key := testenv.Org(t, s, "hooks-retry", 100)
		api := testenv.NewAPI(t, s, key)
		testenv.StreamChanges(t, s, api.Service)
		rc := newReceiver(t, 500, 500)
		wh := createWebhook(t, api, rc.srv.URL, "recipient.created")
		campaign := createCampaign(t, api, 10)
		if res := api.Do("POST", addPath(campaign), recipientBody("ada@example.com", "Ada")); res.Status != http.StatusOK {
			t.Fatalf("add recipient: %d %s", res.Status, res.Body)
		}
		rc.wait(t, 1)
		for i, d := range []time.Duration{5 * time.Second, 5 * time.Minute} {
			waitAttempts(t, api, wh.Data.WebhookID, i+1)
			clk.add(d)
			if err := api.Scheduler.Tick(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		got := rc.wait(t, 3)
		for _, r := range got {
			if r.id != got[0].id || string(r.body) != string(got[0].body) || !verifies(t, wh.Data.Secret, r) {
				t.Errorf("attempt %+v differs from the first or does not verify", r.id)
			}
		}
		log := waitAttempts(t, api, wh.Data.WebhookID, 3)
		var outcomes []string
		for _, a := range log {
			outcomes = append(outcomes, fmt.Sprintf("%d:%s:%d", a.Attempt, a.Outcome, a.StatusCode))
		}
		if want := []string{"3:delivered:200", "2:retrying:500", "1:retrying:500"}; !slices.Equal(outcomes, want) {
			t.Errorf("deliveries log %v, want %v (newest first)", outcomes, want)
		}
		// Nothing is due any more: a later tick sends nothing.
		clk.add(48 * time.Hour)
		if err := api.Scheduler.Tick(t.Context()); err != nil {
			t.Fatal(err)
		}
		if n := len(rc.wait(t, 3)); n != 3 {
			t.Errorf("the receiver got %d requests, want 3", n)
		}
	})

	t.Run("the change feed holds exactly the delivered messages, in order, with no gap across pages", func(t *testing.T) {
		t.Parallel()
		clk := &hookClock{now: time.Now()}
		s := testenv.Store(t, dynamo.WithClock(clk.Now))
		_, key := testenv.Org(t, s, "hooks-feed", 100)
		api := testenv.NewAPI(t, s, key)
		testenv.StreamChanges(t, s, api.Service)
		rc := newReceiver(t)
		createWebhook(t, api, rc.srv.URL, "*")
		campaign := createCampaign(t, api, 10)
		// Eight writers at once: each add-recipient commits its own change
		// record (the recipient and the wallet's debit).
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if res := api.Do("POST", addPath(campaign), recipientBody(fmt.Sprintf("r%d@example.com", i), "R")); res.Status != http.StatusOK {
					t.Errorf("add recipient %d: %d %s", i, res.Status, res.Body)
				}
			}()
		}
		wg.Wait()
		// Records younger than FeedLag are not served yet.
		if page := readFeed(t, api, ""); len(page.Items) != 0 {
			t.Errorf("the feed served %d messages younger than %v", len(page.Items), webhook.FeedLag)
		}
		clk.add(webhook.FeedLag + time.Second)
		var feed []message
		for after, pages := "", 0; ; pages++ {
			page := readFeed(t, api, after)
			if len(page.Items) == 0 {
				if page.NextCursor != after {
					t.Errorf("an empty page's cursor %q, want the one given %q", page.NextCursor, after)
				}
				break
			}
			if pages > 20 {
				t.Fatal("the feed does not end")
			}
			feed = append(feed, page.Items...)
			after = page.NextCursor
		}
		created := 0
		for i, m := range feed {
			if i > 0 && m.ID <= feed[i-1].ID {
				t.Errorf("message %d (%s) is not after %s", i, m.ID, feed[i-1].ID)
			}
			if m.Type == "recipient.created" {
				created++
			}
		}
		if created != 8 {
			t.Errorf("the feed holds %d recipient.created, want 8", created)
		}
		var delivered []string
		for _, r := range rc.wait(t, len(feed)) {
			delivered = append(delivered, r.id)
		}
		slices.Sort(delivered)
		var ids []string
		for _, m := range feed {
			ids = append(ids, m.ID)
		}
		if !slices.Equal(delivered, ids) {
			t.Errorf("delivered %v, the feed holds %v: want exactly the same messages", delivered, ids)
		}
	})

	t.Run("a rotated secret verifies with both secrets for 24 hours", func(t *testing.T) {
		t.Parallel()
		clk := &hookClock{now: time.Now()}
		s := testenv.Store(t, dynamo.WithClock(clk.Now))
		_, key := testenv.Org(t, s, "hooks-rotate", 0)
		api := testenv.NewAPI(t, s, key)
		rc := newReceiver(t)
		old := createWebhook(t, api, rc.srv.URL, "*")
		var rotated webhookSecret
		res := api.Do("POST", "/api/campaigns/webhooks/"+old.Data.WebhookID+"/rotate-secret", nil)
		res.JSON(t, &rotated)
		if res.Status != http.StatusOK || rotated.Data.Secret == old.Data.Secret {
			t.Fatalf("rotate: %d %s", res.Status, res.Body)
		}
		for i, tt := range []struct {
			after   time.Duration
			oldToo  bool
			message string
		}{{time.Hour, true, "within the overlap"}, {24 * time.Hour, false, "after the overlap"}} {
			clk.add(tt.after)
			if res := api.Do("POST", "/api/campaigns/webhooks/"+old.Data.WebhookID+"/test", nil); res.Status != http.StatusOK {
				t.Fatalf("test: %d %s", res.Status, res.Body)
			}
			got := rc.wait(t, i+1)[i]
			if !verifies(t, rotated.Data.Secret, got) {
				t.Errorf("%s: the new secret does not verify", tt.message)
			}
			if verifies(t, old.Data.Secret, got) != tt.oldToo {
				t.Errorf("%s: the old secret verifies %v, want %v", tt.message, !tt.oldToo, tt.oldToo)
			}
		}
	})
}

// delivery is an entry of the deliveries log.
type delivery struct {
	Attempt    int    `json:"attempt"`
	Outcome    string `json:"outcome"`
	StatusCode int    `json:"statusCode"`
}

// waitAttempts returns the deliveries log once it holds n attempts.
func waitAttempts(t *testing.T, api *testenv.API, webhookID string, n int) []delivery {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var page struct {
			Data struct {
				Items []delivery `json:"items"`
			} `json:"data"`
		}
		res := api.Do("GET", "/api/campaigns/webhooks/"+webhookID+"/deliveries", nil)
		res.JSON(t, &page)
		if len(page.Data.Items) >= n {
			return page.Data.Items
		}
	}
	t.Fatalf("the deliveries log did not reach %d attempts", n)
	return nil
}

// feedPage is the data of a change feed page.
type feedPage struct {
	Items      []message `json:"items"`
	NextCursor string    `json:"nextCursor"`
}

// readFeed reads the page of the change feed after a cursor, three
// messages at a time (so a test crosses pages and records).
func readFeed(t *testing.T, api *testenv.API, after string) feedPage {
	t.Helper()
	var body struct {
		Data feedPage `json:"data"`
	}
	res := api.Do("GET", "/api/campaigns/changes?limit=3&after="+after, nil)
	res.JSON(t, &body)
	if res.Status != http.StatusOK {
		t.Fatalf("read the feed after %q: %d %s", after, res.Status, res.Body)
	}
	return body.Data
}
