package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/giftcampaign/service/client"
)

// retryFor is how long the load keeps sending a call again after lost answers or 5xx, 0.5–2 s apart, as
// a client riding out an outage would (DynamoDB Local takes seconds to start again). retries bounds how
// often an import's failed rows are sent again.
const (
	retryFor = time.Minute
	retries  = 4
)

// retrier paces one call's attempts.
type retrier struct {
	start time.Time
	tries int
}

func newRetrier() *retrier { return &retrier{start: time.Now()} }

// more reports whether to make another attempt: the first at once, the next ones after a pause, until
// retryFor has passed or ctx ends.
func (r *retrier) more(ctx context.Context) bool {
	r.tries++
	if r.tries == 1 {
		return true
	}
	if ctx.Err() != nil || time.Since(r.start) > retryFor {
		return false
	}
	pause(ctx, time.Duration(500+rand.IntN(1500))*time.Millisecond)
	return ctx.Err() == nil
}

// sizes are a run's launch sizes and adds per campaign: smaller for a short run (CI), like the issue's
// run for a long one.
type sizes struct {
	launchMin, launchMax, addsMin, addsMax int
}

func sizesFor(d time.Duration) sizes {
	if d <= 3*time.Minute {
		return sizes{launchMin: 150, launchMax: 450, addsMin: 10, addsMax: 30}
	}
	return sizes{launchMin: 275, launchMax: 1400, addsMin: 20, addsMax: 60}
}

// drainGrace is how long the calls in flight (and their retries) may run on once the load stops; past
// it they are cancelled, and their outcome is unknown.
const drainGrace = 20 * time.Second

// drive runs the load for cfg.duration with its faults, then waits for the calls in flight.
func drive(root context.Context, c *cluster, w *world, cfg config) {
	load, stop := context.WithTimeout(root, cfg.duration)
	defer stop()
	ctx, stopDrain := context.WithTimeout(root, cfg.duration+drainGrace)
	defer stopDrain()
	var wg sync.WaitGroup
	sz := sizesFor(cfg.duration)
	for i, o := range w.orgs {
		wg.Go(func() {
			// Start apart, so the launches do not all fall together.
			pause(load, time.Duration(i)*4*time.Second)
			for n := 1; load.Err() == nil; n++ {
				// Each campaign draws from a generator of its own, so the seed fixes it whatever runs beside.
				rng := rand.New(rand.NewPCG(uint64(cfg.seed), uint64(1000*(i+1)+n)))
				life := &campaignLife{w: w, o: o, rng: rng, sz: sz, n: n}
				if !life.launched(ctx, load) {
					// A life cut short by an outage: a client waits a little before starting over.
					pause(load, 3*time.Second)
					continue
				}
				// Its adds go on beside the next campaign's imports and launch.
				wg.Go(func() { life.follow(ctx, load) })
			}
		})
	}
	cl := newClaimer(c, w, cfg.seed)
	wg.Go(func() { cl.run(ctx, load) })
	wg.Go(func() { moveRecipients(ctx, load, w, rand.New(rand.NewPCG(uint64(cfg.seed), 101))) })
	wg.Go(func() { readLists(ctx, load, c, w, rand.New(rand.NewPCG(uint64(cfg.seed), 102))) })
	wg.Go(func() { replayAdds(ctx, load, w) })
	wg.Go(func() { injectFaults(root, load, c, cfg) })
	wg.Wait()
}

// campaignLife is one campaign from its list to its last add: a list imported in batches with repeated
// addresses and bad rows, a campaign, its launch, adds while it prepares and after, and now and then
// its completion.
type campaignLife struct {
	w   *world
	o   *org
	rng *rand.Rand
	sz  sizes
	n   int
	c   *campaign
}

// launched plays the life up to the launch (calls already started finish under ctx) and reports whether
// the campaign launched.
func (l *campaignLife) launched(ctx, load context.Context) bool {
	l.c = &campaign{org: l.o, name: fmt.Sprintf("Chaos %s #%d", l.o.id, l.n)}
	if !l.createList(ctx) || load.Err() != nil || !l.importContacts(ctx, load) || load.Err() != nil {
		return false
	}
	if !l.createCampaign(ctx) {
		return false
	}
	l.w.addCampaign(l.c)
	return load.Err() == nil && l.launch(ctx)
}

// addsFor bounds a campaign's adds phase, so that a slow machine still sees new launches.
const addsFor = time.Minute

// follow makes the campaign's adds, then now and then completes it.
func (l *campaignLife) follow(ctx, load context.Context) {
	adds := l.sz.addsMin + l.rng.IntN(l.sz.addsMax-l.sz.addsMin+1)
	until := time.Now().Add(addsFor)
	for i := 0; i < adds && load.Err() == nil && time.Now().Before(until); i++ {
		l.addRecipient(ctx, i)
		pause(load, time.Duration(150+l.rng.IntN(450))*time.Millisecond)
	}
	if load.Err() == nil && l.rng.IntN(6) == 0 {
		l.complete(ctx, load)
	}
}

// again calls fn until its answer is neither lost nor a 5xx, or its retrier gives up.
func again[T any](ctx context.Context, fn func() (T, *http.Response, error)) (v T, res *http.Response, err error) {
	for rt := newRetrier(); rt.more(ctx); {
		if v, res, err = fn(); !unsure(res, err) {
			break
		}
	}
	return v, res, err
}

func (l *campaignLife) createList(ctx context.Context) bool {
	res, _, err := again(ctx, func() (*client.CreateContactListResponse, *http.Response, error) {
		r, err := l.o.api.CreateContactListWithResponse(as(ctx, "list: create"), client.CreateContactListJSONRequestBody{Name: l.c.name})
		return r, httpRes(r, err), err
	})
	if err != nil || res.JSON201 == nil {
		return false
	}
	l.c.listID = res.JSON201.Data.ListId
	return true
}

// importContacts imports the list's addresses in batches of 100: each batch also repeats a few
// addresses (of this batch or an earlier one, in another case) and carries two rows that must fail. A
// batch whose answer is lost is sent again, and the valid rows a 207 reports failed (storage down, say)
// are sent again, as a client would; imports merge by address, so a row applied twice changes nothing
// more. imported counts the distinct addresses the answers confirmed.
func (l *campaignLife) importContacts(ctx, load context.Context) bool {
	n := l.sz.launchMin + l.rng.IntN(l.sz.launchMax-l.sz.launchMin+1)
	emails := l.rng.Perm(poolSize)[:n]
	var sent []string
	confirmed := map[string]bool{}
	for start := 0; start < n; start += 88 {
		batch := []map[string]string{}
		for _, i := range emails[start:min(start+88, n)] {
			e := fmt.Sprintf("c%d@%s.example.com", i, l.o.id)
			sent = append(sent, e)
			batch = append(batch, map[string]string{"mailId": e, "firstName": fmt.Sprintf("Guest%d", i), "lastName": l.o.id,
				"companyName": "Chaos Inc", "jobTitle": "Tester"})
		}
		for range 8 {
			batch = append(batch, map[string]string{"mailId": strings.ToUpper(sent[l.rng.IntN(len(sent))]), "phoneNumber": "+15125550100"})
		}
		batch = append(batch, map[string]string{"mailId": "not-an-email"}, map[string]string{"firstName": "No email"})
		l.rng.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
		for attempt := 0; len(batch) > 0; attempt++ {
			if attempt > retries || load.Err() != nil {
				return false
			}
			failed, ok := l.importBatch(ctx, batch, confirmed)
			if !ok {
				return false
			}
			batch = failed
		}
	}
	l.c.imported = len(confirmed)
	return true
}

// importBatch sends one batch and returns its valid rows that failed; confirmed gains the addresses
// the answer added or merged.
func (l *campaignLife) importBatch(ctx context.Context, batch []map[string]string, confirmed map[string]bool) ([]map[string]string, bool) {
	body, _ := json.Marshal(map[string]any{"contacts": batch})
	res, h, err := again(ctx, func() (*client.AddContactsToListResponse, *http.Response, error) {
		r, err := l.o.api.AddContactsToListWithBodyWithResponse(as(ctx, "list: import 100"), l.c.listID, "application/json", bytes.NewReader(body))
		return r, httpRes(r, err), err
	})
	if err != nil || h == nil || h.StatusCode >= 300 {
		return nil, false
	}
	var out struct {
		Data struct {
			Results []struct {
				Index  int    `json:"index"`
				Status string `json:"status"`
			} `json:"results"`
		} `json:"data"`
	}
	if json.Unmarshal(res.Body, &out) != nil {
		return nil, false
	}
	var failed []map[string]string
	for _, r := range out.Data.Results {
		if r.Index < 0 || r.Index >= len(batch) {
			continue
		}
		row := batch[r.Index]
		valid := strings.Contains(row["mailId"], "@")
		switch {
		case r.Status == "failed" && valid:
			failed = append(failed, row)
		case r.Status != "failed" && valid:
			confirmed[strings.ToLower(row["mailId"])] = true
		}
	}
	return failed, true
}

func (l *campaignLife) createCampaign(ctx context.Context) bool {
	key := l.newKey("campaign")
	body, _ := json.Marshal(map[string]any{"name": l.c.name, "description": "made by the chaos run",
		"campaignData": map[string]any{"contactListId": l.c.listID, "giftIds": l.o.gifts,
			"emailTemplateId": []string{"tmpl-meeting-booker", "tmpl-event-thank-you", "tmpl-customer-appreciation"}[l.rng.IntN(3)]}})
	res, _, err := again(ctx, func() (*client.CreateCampaignResponse, *http.Response, error) {
		r, err := l.o.api.CreateCampaignWithBodyWithResponse(as(ctx, "campaign: create"), &client.CreateCampaignParams{IdempotencyKey: &key},
			"application/json", bytes.NewReader(body))
		return r, httpRes(r, err), err
	})
	if err != nil || res.JSON201 == nil {
		return false
	}
	l.c.id = res.JSON201.Data.CampaignId
	return true
}

// launch launches the campaign, with an Idempotency-Key seven times in ten. A lost answer is retried:
// with the key, the retry must get the first answer; without, a 409 (no longer a draft) says the lost
// attempt launched it.
func (l *campaignLife) launch(ctx context.Context) bool {
	var params client.LaunchCampaignParams
	kind := "launch"
	if l.rng.IntN(10) < 7 {
		key := l.newKey("launch")
		params.IdempotencyKey, kind = &key, "launch (key)"
	}
	lostOnce := false
	for rt := newRetrier(); rt.more(ctx); {
		res, err := l.o.api.LaunchCampaignWithResponse(as(ctx, kind), l.c.id, &params)
		switch {
		case unsure(httpRes(res, err), err):
			lostOnce = true
			continue
		case lostOnce && params.IdempotencyKey != nil:
			l.w.keyedRetry(l.c.id, *params.IdempotencyKey, "launch", res.HTTPResponse)
			if res.JSON202 != nil {
				return l.setLaunch(true, int64(res.JSON202.Data.Contacts))
			}
			return l.setLaunch(false, l.launchedContacts(ctx))
		case res.JSON202 != nil:
			return l.setLaunch(true, int64(res.JSON202.Data.Contacts))
		case res.HTTPResponse.StatusCode == http.StatusConflict && lostOnce:
			return l.setLaunch(true, l.launchedContacts(ctx))
		}
		return false
	}
	return l.setLaunch(false, l.launchedContacts(ctx))
}

// setLaunch records the launch: seen (a 202, or a retry's 409 after a lost answer) or unsure, with the
// contacts it paid for. It reports seen.
func (l *campaignLife) setLaunch(seen bool, contacts int64) bool {
	l.w.mu.Lock()
	defer l.w.mu.Unlock()
	l.c.launchSeen, l.c.launchUnsure, l.c.contacts = seen, !seen, contacts
	return seen
}

// launchedContacts reads how many contacts the campaign's launch paid for (0 when it did not launch).
func (l *campaignLife) launchedContacts(ctx context.Context) int64 {
	res, _, err := again(ctx, func() (*client.GetCampaignResponse, *http.Response, error) {
		r, err := l.o.api.GetCampaignWithResponse(as(ctx, "campaign: read"), l.c.id)
		return r, httpRes(r, err), err
	})
	if err != nil || res.JSON200 == nil || res.JSON200.Data.LaunchProgress == nil {
		return 0
	}
	return int64(res.JSON200.Data.LaunchProgress.Contacts)
}

// complete waits for the campaign to be live, then completes it.
func (l *campaignLife) complete(ctx, load context.Context) {
	for load.Err() == nil {
		res, err := l.o.api.GetCampaignWithResponse(as(ctx, "campaign: read"), l.c.id)
		if err == nil && res.JSON200 != nil && res.JSON200.Data.Status == "live" {
			break
		}
		pause(load, 2*time.Second)
	}
	if load.Err() != nil {
		return
	}
	_, res, err := again(ctx, func() (*client.CompleteCampaignResponse, *http.Response, error) {
		r, err := l.o.api.CompleteCampaignWithResponse(as(ctx, "campaign: complete"), l.c.id, client.CompleteCampaignJSONRequestBody{})
		return r, httpRes(r, err), err
	})
	if !lost(res, err) && (res.StatusCode == http.StatusOK || res.StatusCode == http.StatusConflict) {
		l.w.mu.Lock()
		l.c.completed = true
		l.w.mu.Unlock()
	}
}

// newKey returns an idempotency key drawn from the run's seed.
func (l *campaignLife) newKey(what string) string {
	return fmt.Sprintf("chaos-%s-%s-%d-%016x", what, l.o.id, l.n, l.rng.Uint64())
}

// httpRes returns the HTTP response of a generated response (its HTTPResponse field), nil when the
// call failed.
func httpRes[T any](r *T, err error) *http.Response {
	if err != nil || r == nil {
		return nil
	}
	h, _ := reflect.ValueOf(r).Elem().FieldByName("HTTPResponse").Interface().(*http.Response)
	return h
}
