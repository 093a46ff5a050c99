package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/giftcampaign/service/client"
	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
)

// The load's size. Organizations run side by side, one campaign worker each.
const (
	orgCount = 3
	// credits is each organization's wallet at the start: enough that no launch or add is refused.
	credits = 10_000_000
	// poolSize is how many distinct addresses an organization's imports draw from.
	poolSize = 6000
)

// giftStock is the inventory of each organization's two gifts: one runs out during the run (claims then
// answer out of stock), one does not.
var giftStock = []struct {
	name  string
	price float32
	total int
}{{"Scarce candle", 30, 25}, {"Coffee sampler", 40, 5000}}

// world is what the load did, as the harness saw it: what the checks compare the table, the SES
// emulator and the receiver against.
type world struct {
	st   stats
	orgs []*org

	mu        sync.Mutex
	campaigns []*campaign
	claims    []*claim
	replays   []replay
	lists     []listRead
	// feed is the change feed as the settling read it.
	feed *feed
}

// org is one organization of the run, with its API client.
type org struct {
	id, key   string
	api       *client.ClientWithResponses
	gifts     []string
	stock     map[string]int
	webhookID string
}

// campaign is a campaign the load created.
type campaign struct {
	org          *org
	id, listID   string
	name         string
	imported     int  // distinct valid addresses imported into its list
	launchSeen   bool // a 202 (or the 409 of a retry after a lost launch) says it launched
	launchUnsure bool // the launch's outcome is unknown
	contacts     int64
	completed    bool
	adds         []*add
}

// add is one add-recipient the load made (with its retries).
type add struct {
	email, key string
	body       []byte // the request's body, for replays
	// outcome: accepted (a 200, or a retry's 409 "already a recipient"), rejected (a 4xx), unknown.
	outcome     string
	recipientID string
	first       []byte // the first 200's body
}

// claim is one claim made through the recipient pages.
type claim struct {
	org, landingPageID, giftID string
	outcome                    string // claimed, refused (4xx), unknown
}

// replay is one replay of an accepted, keyed add-recipient, or the answer to a keyed call sent again
// after its answer was lost (afterLoss: an add or a launch; the first answer is unknown, so only a
// success is asked of it: a 409 means the first attempt went through and the key did not replay it).
type replay struct {
	campaignID, key, what string
	status                int
	replayed, equal       bool
	afterLoss             bool
}

// listRead is one reading of a whole recipient list while work ran.
type listRead struct {
	campaignID string
	truth      int      // recipients in the table before the first page
	missing    []string // of those, the ones no page held
	pages      int
	earlyEnd   bool // hasNext was false before every recipient of truth was seen
}

// keyedRetry records the answer to a keyed call sent again after a lost answer.
func (w *world) keyedRetry(campaignID, key, what string, h *http.Response) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.replays = append(w.replays, replay{campaignID: campaignID, key: key, what: what, status: h.StatusCode,
		replayed: h.Header.Get("Idempotent-Replayed") == "true", afterLoss: true})
}

func (w *world) addCampaign(c *campaign) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.campaigns = append(w.campaigns, c)
}

// launched returns the campaigns whose launch was accepted (or may have been).
func (w *world) launched() []*campaign {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []*campaign
	for _, c := range w.campaigns {
		if c.launchSeen || c.launchUnsure {
			out = append(out, c)
		}
	}
	return out
}

// setUp creates the organizations (as an operator, in the table: `admin create-org` and `create-key`),
// then through the API each one's gifts and its webhook to the receiver.
func setUp(ctx context.Context, c *cluster, cfg config) (*world, error) {
	w := &world{}
	d := &doer{hc: newHTTPClient(), st: &w.st}
	for i := range orgCount {
		id := fmt.Sprintf("chaos-%d", i+1)
		if _, _, err := access.NewApp(c.store).CreateOrg(ctx, access.NewOrg{OrgID: id, Name: "Chaos " + id, Domain: id + ".example.com",
			Credits: credits}); err != nil {
			return nil, err
		}
		key, _, err := c.store.CreateAPIKey(ctx, id, "chaos", "chaos run")
		if err != nil {
			return nil, err
		}
		// The load stays within SPEC.md's pace per organization but for bursts of imports and adds;
		// the limits are raised so that 429s do not crowd out the work.
		if err := c.store.SetRateLimits(ctx, id, map[gifting.RateClass]int{gifting.RateBulkAdd: 600, gifting.RateAddRecipient: 3000}); err != nil {
			return nil, err
		}
		api, err := newAPI(c.front.url, key, d)
		if err != nil {
			return nil, err
		}
		o := &org{id: id, key: key, api: api, stock: map[string]int{}}
		if err := o.setUp(ctx, c); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		w.orgs = append(w.orgs, o)
	}
	return w, nil
}

// setUp creates o's gifts and webhook.
func (o *org) setUp(ctx context.Context, c *cluster) error {
	for _, g := range giftStock {
		body := client.CreateGiftJSONRequestBody{Name: g.name, Price: g.price, Currency: "USD",
			Inventory: &client.Inventory{Total: g.total, Available: g.total}}
		res, err := o.api.CreateGiftWithResponse(as(ctx, "set up: gift"), body)
		if err != nil || res.JSON201 == nil {
			return fmt.Errorf("create gift: %v %s", err, body2(res.Body))
		}
		o.gifts = append(o.gifts, res.JSON201.Data.GiftId)
		o.stock[res.JSON201.Data.GiftId] = g.total
	}
	desc := "chaos receiver"
	hook, err := o.api.CreateWebhookWithResponse(as(ctx, "set up: webhook"), client.CreateWebhookJSONRequestBody{
		Url: c.hooks.url + o.id, Events: []client.WebhookInputEvents{"*"}, Description: &desc})
	if err != nil || hook.JSON201 == nil {
		return fmt.Errorf("create webhook: %v %s", err, body2(hook.Body))
	}
	o.webhookID = hook.JSON201.Data.WebhookId
	return c.hooks.setSecret(o.id, hook.JSON201.Data.Secret)
}

// body2 quotes the start of a body for an error.
func body2(b []byte) string {
	if len(b) > 300 {
		b = b[:300]
	}
	return string(b)
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
