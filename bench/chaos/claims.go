package main

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/giftcampaign/service/client"
	"github.com/giftcampaign/service/infra/localstack"
)

// claimShare is the share of invitations whose recipient claims the gift during the run (one in four).
const claimShare = 4

var (
	landingLink = regexp.MustCompile(`href="([^"]*/gift/([^"/]+))"`)
	claimLink   = regexp.MustCompile(`href="(/claim/[^"]*)"`)
)

// claimer plays the recipients: it reads the emails the SES emulator received, and for about one in four
// follows the link to the landing page, then the claim page, and posts the claim form with one of the
// campaign's gifts, as a browser would.
type claimer struct {
	c    *cluster
	w    *world
	rng  *rand.Rand
	hc   *http.Client
	seen map[string]bool // landing page ids already taken or passed over
	orgs map[string]*org
}

func newClaimer(c *cluster, w *world, seed int64) *claimer {
	cl := &claimer{c: c, w: w, rng: rand.New(rand.NewPCG(uint64(seed), 100)), seen: map[string]bool{}, orgs: map[string]*org{}}
	cl.hc = &http.Client{Transport: &doer{hc: newHTTPClient(), st: &w.st}, Timeout: requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, o := range w.orgs {
		cl.orgs[o.id] = o
	}
	return cl
}

// RoundTrip lets the counting doer serve as a transport.
func (d *doer) RoundTrip(req *http.Request) (*http.Response, error) { return d.Do(req) }

func (cl *claimer) run(ctx, load context.Context) {
	var since int64
	for load.Err() == nil {
		pause(load, 3*time.Second)
		emails, err := localstack.FetchEmails(ctx, cl.c.ses.Endpoint(), since)
		if err != nil {
			continue
		}
		var todo []string
		for _, e := range emails {
			since = max(since, e.At)
			m := landingLink.FindStringSubmatch(e.Body.HTML)
			if m == nil || cl.seen[m[2]] {
				continue
			}
			cl.seen[m[2]] = true
			if cl.rng.IntN(claimShare) == 0 {
				todo = append(todo, m[1])
			}
		}
		// A few recipients at a time, as they open their mail.
		var wg sync.WaitGroup
		sem := make(chan struct{}, 3)
		for _, link := range todo {
			if load.Err() != nil {
				break
			}
			gift := cl.rng.IntN(10)
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				cl.claim(ctx, link, gift)
			})
		}
		wg.Wait()
	}
}

// claim follows link (a landing page) to the claim page and posts the form; pick chooses the gift.
func (cl *claimer) claim(ctx context.Context, link string, pick int) {
	landingID := link[strings.LastIndex(link, "/")+1:]
	o := cl.orgs[strings.SplitN(landingID, ".", 2)[0]]
	if o == nil {
		return
	}
	page, ok := cl.get(ctx, "claim: landing page", link)
	m := claimLink.FindStringSubmatch(page)
	if !ok || m == nil {
		return
	}
	claimURL := cl.c.front.url + m[1]
	if _, ok := cl.get(ctx, "claim: claim page", claimURL); !ok {
		return
	}
	gift := o.gifts[0]
	if pick >= 4 {
		gift = o.gifts[1]
	}
	form := url.Values{"giftId": {gift}, "line1": {"12 Penguin Way"}, "city": {"Portland"}, "state": {"OR"},
		"zip": {"97201"}, "country": {"US"}}
	cm := &claim{org: o.id, landingPageID: landingID, giftID: gift, outcome: "unknown"}
	wasUnsure := false
	for rt := newRetrier(); rt.more(ctx); {
		req, _ := http.NewRequestWithContext(as(ctx, "claim: post"), http.MethodPost, claimURL, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := cl.hc.Do(req)
		if err == nil {
			res.Body.Close()
		}
		switch {
		case unsure(res, err):
			wasUnsure = true
			continue
		case res.StatusCode == http.StatusSeeOther:
			cm.outcome = "claimed"
		case res.StatusCode == http.StatusConflict && wasUnsure:
			// Already claimed (by the lost attempt) or out of stock: unknown.
		default:
			cm.outcome = "refused"
		}
		break
	}
	cl.w.mu.Lock()
	cl.w.claims = append(cl.w.claims, cm)
	cl.w.mu.Unlock()
}

// get reads a page and returns its body when it answers 200.
func (cl *claimer) get(ctx context.Context, kind, u string) (string, bool) {
	for rt := newRetrier(); rt.more(ctx); {
		req, _ := http.NewRequestWithContext(as(ctx, kind), http.MethodGet, u, nil)
		res, err := cl.hc.Do(req)
		if unsure(res, err) {
			if err == nil {
				res.Body.Close()
			}
			continue
		}
		return readAll(res), res.StatusCode == http.StatusOK
	}
	return "", false
}

// readAll reads and closes a response's body (at most 1 MiB).
func readAll(res *http.Response) string {
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return string(b)
}

// nextStatus is where fulfilment moves a recipient next through the status endpoint. A claimed
// recipient is processing with an order: it ships through the orders API (shipOrder), and only then
// moves on by status.
var nextStatus = map[string][]string{
	"address_confirmed": {"processing", "shipped"},
	"shipped":           {"in_transit", "delivered"},
	"in_transit":        {"delivered"},
	"delivered":         {"acknowledged"},
}

// shipOrder records the shipment of r's order, as a warehouse would: a tracking number of its own.
func shipOrder(ctx context.Context, c *campaign, r client.Recipient) {
	orderID, _ := r.ShipmentInfo["orderId"].(string)
	if orderID == "" {
		return
	}
	body := client.ShipOrderJSONRequestBody{Carrier: "UPS", TrackingNumber: "1Z" + strings.ToUpper(r.RecipientId)}
	_, _ = c.org.api.ShipOrderWithResponse(as(ctx, "status: ship order"), orderID, body)
}

// moveRecipients plays fulfilment: every second or two it reads the claimed recipients of a campaign
// (a list filtered by status) and moves a few of them a step on.
func moveRecipients(ctx, load context.Context, w *world, rng *rand.Rand) {
	for load.Err() == nil {
		pause(load, time.Duration(1000+rng.IntN(1500))*time.Millisecond)
		cs := w.launched()
		if len(cs) == 0 {
			continue
		}
		c := cs[rng.IntN(len(cs))]
		status := "address_confirmed,processing,shipped,in_transit,delivered"
		limit := 20
		res, err := c.org.api.ListCampaignRecipientsWithResponse(as(ctx, "status: list claimed"), c.id,
			&client.ListCampaignRecipientsParams{Status: &status, Limit: &limit})
		if err != nil || res.JSON200 == nil {
			continue
		}
		rs, err := res.JSON200.Recipients.AsRecipientListRecipients0()
		if err != nil {
			continue
		}
		for i, r := range rs {
			if i >= 4 || load.Err() != nil {
				break
			}
			if r.Status == "processing" {
				shipOrder(ctx, c, r)
				continue
			}
			to := nextStatus[string(r.Status)]
			if len(to) == 0 {
				continue
			}
			body := client.MoveRecipientJSONRequestBody{Status: client.RecipientStatus(to[rng.IntN(len(to))])}
			_, _ = c.org.api.MoveRecipientWithResponse(as(ctx, "status: move"), c.id, r.RecipientId, body)
		}
	}
}
