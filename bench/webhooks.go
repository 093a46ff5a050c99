package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/app/streams"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/sealed"
	"github.com/giftcampaign/service/shared/sealed/kmskey"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/webhooks"
	"github.com/giftcampaign/service/shared/wire"
)

// webhookRecipients is the number of add-recipients whose webhooks the
// latency scenario times.
const webhookRecipients = 500

// webhookAlone is the number of add-recipients then made one at a time,
// each after the webhook of the one before arrived.
const webhookAlone = 50

// streamPoll is the pause of the local runner's stream reader between
// polls of a shard with nothing new (shared/app/streams.NewReader).
const streamPoll = 100 * time.Millisecond

// isChangeRecord tells change records (shared/dynamo's changesPK,
// ORG#<org>#CHG) by their partition key.
func isChangeRecord(pk string) bool { return strings.HasSuffix(pk, "#CHG") }

// changeWrites are the write units AWS would bill for calls, in all and
// for their change records alone (estimated as units.go does): the whole
// of each record of its own, and what the messages add to the ledger
// entries that hold a balance change's (nothing while the entry stays
// within the same kilobyte).
func (e *env) changeWrites(ctx context.Context, calls []meter.Call) (all, changes float64) {
	all, changes = e.bill.writeUnits(ctx, calls), e.bill.writeUnits(ctx, meter.Writes(calls, isChangeRecord))
	for _, it := range changePuts(calls) {
		if isChangeRecord(attrString(it["PK"])) {
			continue
		}
		bare := maps.Clone(it)
		delete(bare, "rec")
		delete(bare, "org")
		delete(bare, "msgs")
		changes += 2 * (kb(dynamo.ItemSize(it)) - kb(dynamo.ItemSize(bare)))
	}
	return all, changes
}

// changePuts are the items holding change messages (rec = change) that
// the committed transactions of calls put: records of their own and ledger
// entries.
func changePuts(calls []meter.Call) []map[string]types.AttributeValue {
	var out []map[string]types.AttributeValue
	for _, c := range calls {
		tw, ok := c.Input.(*dynamodb.TransactWriteItemsInput)
		if !ok || c.Err != nil {
			continue
		}
		for _, it := range tw.TransactItems {
			if it.Put != nil && attrString(it.Put.Item["rec"]) == "change" {
				out = append(out, it.Put.Item)
			}
		}
	}
	return out
}

// receiver is a webhook endpoint on a loopback port: it counts the
// messages it received (by webhook-id) and notes when each
// recipient.created message first arrived.
type receiver struct {
	mu       sync.Mutex
	arrived  map[string]time.Time // by recipient id
	messages map[string]bool      // webhook-ids seen
	repeats  int
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg struct {
		Type string `json:"type"`
		Data struct {
			RecipientID string `json:"recipientId"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if id := r.Header.Get("webhook-id"); rc.messages[id] {
		rc.repeats++
	} else {
		rc.messages[id] = true
	}
	if _, seen := rc.arrived[msg.Data.RecipientID]; msg.Type == gifting.ChangeRecipientCreated && !seen {
		rc.arrived[msg.Data.RecipientID] = at
	}
	w.WriteHeader(http.StatusNoContent)
}

// received returns how many distinct messages arrived, and how many
// arrived again.
func (rc *receiver) received() (messages, repeats int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.messages), rc.repeats
}

// arrival returns when recipient id's recipient.created arrived.
func (rc *receiver) arrival(id string) (time.Time, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	at, ok := rc.arrived[id]
	return at, ok
}

// webhookScenario times webhooks from commit to receiver as `make run`
// delivers them, and measures what the change record adds to an
// add-recipient: on a table of its own with its stream read by the local
// runner's reader, an endpoint for every event on a receiver on a loopback
// port, and webhookRecipients add-recipients one after another.
func webhookScenario(ctx context.Context, e *env) []systemFigure {
	method := fmt.Sprintf("Webhooks: a table of its own with its stream, read by shared/app/streams' Reader into the service's deliveries as `make run` wires it (a poll every %s while the stream is quiet, WEBHOOKS_ALLOW_LOCAL); an endpoint registered through the API (POST /api/campaigns/webhooks, events `*`) on an HTTP receiver on a loopback port; %d add-recipients to a draft campaign one after another through the API, none waiting for its webhook (back to back), then %d more, each once the webhook of the one before arrived and a random pause of up to %s passed (one at a time). Latency is the receiver's arrival time of each `recipient.created` less the time its add-recipient call returned, an upper bound of the commit (the commit lies within the call, whose p50 the row gives), so the latency is, if anything, an underestimate by at most that. The change record's write units are the billed estimate (as for the endpoints) of the items whose key is `ORG#<org>#CHG` (meter.Writes) in each call's requests, plus what the messages add to a ledger entry that holds a balance change's (the units of the entry with them less those without).",
		streamPoll, webhookRecipients, webhookAlone, 2*streamPoll)
	fail := func(err error) []systemFigure {
		return []systemFigure{{figure: "webhooks", measured: "failed: " + oneLine(err.Error()), method: method}}
	}
	// The API seals the endpoint's secret with one sealer (the webhooks
	// function's); the deliveries open it with another that starts with an
	// empty cache, as the worker's own process does in AWS.
	sealer, err := benchSecrets()
	if err != nil {
		return fail(err)
	}
	opener, err := benchSecrets()
	if err != nil {
		return fail(err)
	}
	we, err := e.sibling(ctx, envConfig{service: service.Config{Webhooks: webhooks.Policy{AllowLocal: true}, Secrets: sealer}, stream: true})
	if err != nil {
		return fail(err)
	}
	defer we.close()
	worker := service.New(we.store, service.Config{Logger: slog.New(slog.DiscardHandler), Webhooks: webhooks.Policy{AllowLocal: true}, Secrets: opener})

	rc := &receiver{arrived: map[string]time.Time{}, messages: map[string]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	hs := &http.Server{Handler: rc, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()

	rctx, stop := context.WithCancel(ctx)
	reader := &streams.Reader{DB: we.client, Streams: streams.NewClient(we.endpoint), Table: we.table,
		Handle: app.DeliverChange(worker), Log: slog.New(slog.DiscardHandler), Every: streamPoll}
	readerDone := make(chan error, 1)
	go func() { readerDone <- reader.Run(rctx) }()
	defer func() { stop(); <-readerDone }()

	const price = 10
	t, err := we.newTenant(ctx, "hooks", (webhookRecipients+webhookAlone)*price)
	if err != nil {
		return fail(err)
	}
	if _, err := we.expect(ctx, t, http.StatusCreated, "POST", "/api/campaigns/webhooks",
		map[string]any{"url": "http://" + ln.Addr().String() + "/hooks", "events": []string{"*"}, "description": "make bench"}); err != nil {
		return fail(err)
	}
	campaignID, err := we.newCampaign(ctx, t, "Webhooks", nil, price)
	if err != nil {
		return fail(err)
	}

	type sent struct {
		id       string
		returned time.Time
	}
	var (
		took             []time.Duration
		billed, changeWU []float64
		// messages are those the calls' change records hold.
		messages int
	)
	add := func(k int) (sent, error) {
		start := time.Now()
		res, err := we.expect(ctx, t, http.StatusOK, "POST", "/api/campaigns/campaigns/"+campaignID+"/add-recipient", recipientBody("hooks", k))
		returned := time.Now()
		if err != nil {
			return sent{}, err
		}
		var out wire.AddedRecipient
		if err := res.decode(&out); err != nil {
			return sent{}, err
		}
		took = append(took, returned.Sub(start))
		calls := we.last.Load().Calls()
		all, changes := we.changeWrites(ctx, calls)
		billed, changeWU = append(billed, all), append(changeWU, changes)
		messages += changeMessages(calls)
		return sent{id: out.RecipientID, returned: returned}, nil
	}
	latencies := func(adds []sent) []time.Duration {
		var l []time.Duration
		for _, a := range adds {
			if at, ok := rc.arrival(a.id); ok {
				l = append(l, at.Sub(a.returned))
			}
		}
		return l
	}

	// Back to back: the stream and the deliveries under a steady flow.
	var flow []sent
	for k := range webhookRecipients {
		a, err := add(k)
		if err != nil {
			return fail(err)
		}
		flow = append(flow, a)
	}
	// Every webhook arrives within seconds; a minute is a failure.
	deadline := time.Now().Add(time.Minute)
	for n, _ := rc.received(); n < messages && time.Now().Before(deadline); n, _ = rc.received() {
		time.Sleep(5 * time.Millisecond)
	}
	// One at a time: the pipeline's own latency, without a queue.
	var alone []sent
	for k := range webhookAlone {
		a, err := add(webhookRecipients + k)
		if err != nil {
			return fail(err)
		}
		alone = append(alone, a)
		for wait := time.Now().Add(10 * time.Second); time.Now().Before(wait); time.Sleep(time.Millisecond) {
			if _, ok := rc.arrival(a.id); ok {
				break
			}
		}
		// A random pause, so commits fall anywhere in the reader's poll
		// cycle rather than just after the delivery before.
		time.Sleep(rand.N(2 * streamPoll))
	}
	for n, _ := rc.received(); n < messages && time.Now().Before(deadline.Add(time.Minute)); n, _ = rc.received() {
		time.Sleep(5 * time.Millisecond)
	}
	flowL, aloneL := latencies(flow), latencies(alone)
	received, repeats := rc.received()
	kmsMethod := "The same deliveries as the latency row: the endpoint created through the API, whose sealer (the webhooks function's) asks KMS for a data key; the deliveries made by a service of their own whose sealer starts with an empty cache, as the worker's process does (shared/sealed's default limits: a decrypted data key kept 15 minutes). The KMS calls are counted by the sealers (sealed.Box.Stats) against the KMS emulator `make bench` starts; AWS KMS bills each request (USD 0.03 per 10,000 symmetric requests in us-east-1)."
	return []systemFigure{
		{
			figure: "KMS requests of webhook deliveries (sealed signing secrets, data keys cached per process)",
			measured: fmt.Sprintf("%d Decrypt for %d deliveries (%.4f a delivery); %d GenerateDataKey for creating the endpoint",
				opener.Stats().Decrypted, received, float64(opener.Stats().Decrypted)/float64(max(received, 1)), sealer.Stats().Generated),
			target:  "no KMS request per message",
			verdict: verdict(received > 0 && opener.Stats().Decrypted <= 1),
			method:  kmsMethod,
		},
		{
			figure: "write units a change record adds to an add-recipient (billed, est.)",
			measured: fmt.Sprintf("%.1f of the call's %.1f WRU (median of %d add-recipients)",
				medianFloat(changeWU), medianFloat(billed), len(changeWU)),
			method: method,
		},
		{
			figure: "webhook latency from commit to receiver, locally (DynamoDB Local's stream, `make run`'s reader): add-recipients back to back; one at a time",
			measured: fmt.Sprintf("%d back to back: p50 %s, p99 %s, slowest %s; %d one at a time: p50 %s, p99 %s; delivered %d of the %d messages the change records hold, %d again; add-recipient p50 %s",
				len(flowL), ms(percentile(flowL, 50)), ms(percentile(flowL, 99)), ms(percentile(flowL, 100)),
				len(aloneL), ms(percentile(aloneL, 50)), ms(percentile(aloneL, 99)),
				received, messages, repeats, ms(percentile(took, 50))),
			target:  "every committed message delivered",
			verdict: verdict(received == messages && len(flowL) == len(flow) && len(aloneL) == len(alone)),
			method:  method,
		},
	}
}

// benchSecrets is a sealer over the KMS emulator `make bench` starts
// (KMS_ENDPOINT, KMS_KEY_ID), with the default cache limits.
func benchSecrets() (*sealed.Box, error) {
	client, keyID, err := benchKMS()
	if err != nil {
		return nil, err
	}
	return sealed.New(kmskey.New(client, keyID), sealed.DefaultLimits), nil
}

// benchKMS is a client of the KMS emulator `make bench` starts
// (KMS_ENDPOINT) and its key's id (KMS_KEY_ID).
func benchKMS() (*kms.Client, string, error) {
	endpoint, keyID := os.Getenv("KMS_ENDPOINT"), os.Getenv("KMS_KEY_ID")
	if endpoint == "" || keyID == "" {
		return nil, "", fmt.Errorf("KMS_ENDPOINT or KMS_KEY_ID is not set: run `make bench`, which starts the KMS emulator")
	}
	client, err := kmssecrets.NewClient(endpoint)
	return client, keyID, err
}

// changeMessages counts the messages of the change records calls wrote.
func changeMessages(calls []meter.Call) int {
	n := 0
	for _, it := range changePuts(calls) {
		if msgs, ok := it["msgs"].(*types.AttributeValueMemberL); ok {
			n += len(msgs.Value)
		}
	}
	return n
}
