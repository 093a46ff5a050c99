package main

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// refuseShare is the share of messages whose first delivery the receiver answers 500.
const refuseShare = 0.02

// receiver is every organization's webhook endpoint (/hooks/<org>). It verifies each delivery with the
// Standard Webhooks library (signature and timestamp, with the secret the organization's webhook was
// created with), answers the first attempt of about 2 % of the messages with a 500 (chosen by the seed,
// so a run is repeatable) and the retry with a 204, and counts what it received.
type receiver struct {
	url  string
	srv  *http.Server
	seed int64

	mu       sync.Mutex
	verifier map[string]*standardwebhooks.Webhook // by organization
	got      map[string]map[string]int            // organization → message id → verified deliveries
	refused  map[string]bool                      // message ids answered 500 once
	bad      []string                             // deliveries that did not verify: why
	attempts int
}

func newReceiver(seed int64) (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + ln.Addr().String() + "/hooks/", seed: seed,
		verifier: map[string]*standardwebhooks.Webhook{}, got: map[string]map[string]int{}, refused: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hooks/{org}", r.serve)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

// setSecret registers the secret of org's webhook.
func (r *receiver) setSecret(org, secret string) error {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.verifier[org] = wh
	return nil
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	org := req.PathValue("org")
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts++
	wh := r.verifier[org]
	if wh == nil {
		r.bad = append(r.bad, "a delivery to "+org+", which has no webhook")
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if err := wh.Verify(body, req.Header); err != nil {
		r.bad = append(r.bad, org+" "+req.Header.Get("webhook-id")+": "+err.Error())
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var msg struct {
		ID             string `json:"id"`
		OrganizationID string `json:"organizationId"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.ID != req.Header.Get("webhook-id") || msg.OrganizationID != org {
		r.bad = append(r.bad, org+" "+req.Header.Get("webhook-id")+": the body's id or organization differs from the delivery's")
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if !r.refused[msg.ID] && r.refuses(msg.ID) {
		r.refused[msg.ID] = true
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if r.got[org] == nil {
		r.got[org] = map[string]int{}
	}
	r.got[org][msg.ID]++
	w.WriteHeader(http.StatusNoContent)
}

// refuses reports whether the first delivery of message id is refused: a hash of the seed and the id.
func (r *receiver) refuses(id string) bool {
	h := fnv.New64a()
	_, _ = io.WriteString(h, strconv.FormatInt(r.seed, 10)+"/"+id)
	return float64(h.Sum64()%10_000) < refuseShare*10_000
}

// received returns, for org, how often each message id was delivered and verified.
func (r *receiver) received(org string) map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.got[org]))
	for id, n := range r.got[org] {
		out[id] = n
	}
	return out
}

// stats returns the attempts made, the deliveries refused on purpose and those that did not verify.
func (r *receiver) stats() (attempts, refused int, bad []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attempts, len(r.refused), append([]string(nil), r.bad...)
}

func (r *receiver) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
}
