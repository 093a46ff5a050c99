package main

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/giftcampaign/service/client"
)

// kindKey carries a request's kind (its row in the table of requests) in its context.
type kindKey struct{}

// as returns ctx with the request kind of the next call.
func as(ctx context.Context, kind string) context.Context {
	return context.WithValue(ctx, kindKey{}, kind)
}

// requestTimeout bounds one call: past it the answer counts as lost.
const requestTimeout = 45 * time.Second

// doer is the generated client's HTTP client: it counts every request by kind and outcome.
type doer struct {
	hc *http.Client
	st *stats
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	res, err := d.hc.Do(req)
	kind, _ := req.Context().Value(kindKey{}).(string)
	if kind == "" {
		kind = req.Method + " other"
	}
	d.st.record(kind, res, err)
	return res, err
}

// newHTTPClient is the load's HTTP client: no redirects followed (the pages answer 303), a timeout per
// request.
func newHTTPClient() *http.Client {
	return &http.Client{Timeout: requestTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}}
}

// newAPI returns a generated client of the API behind the front, calling it with key.
func newAPI(base, key string, d *doer) (*client.ClientWithResponses, error) {
	return client.NewClientWithResponses(base, client.WithHTTPClient(d),
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("x-api-key", key)
			return nil
		}))
}

// lost reports whether a call's answer was lost: no answer at all, or the front's 502 for a process
// that died with the request in it.
func lost(res *http.Response, err error) bool {
	return err != nil || res == nil || (res.StatusCode == http.StatusBadGateway && res.Header.Get(lostHeader) != "")
}

// unsure reports whether a call may or may not have taken effect: a lost answer, or a 5xx (a storage
// timeout may come after the commit).
func unsure(res *http.Response, err error) bool {
	return lost(res, err) || res.StatusCode >= 500
}

// stats counts requests by kind and outcome.
type stats struct {
	mu     sync.Mutex
	byKind map[string]*outcomes
}

// outcomes of one kind of request.
type outcomes struct {
	ok, redirect, client, server, lost int
	codes                              map[int]int
	// bad5xx are the 5xx answers other than a 503 with Retry-After: an internal error, or a 503 that
	// does not say when to come back.
	bad5xx []string
}

func (s *stats) record(kind string, res *http.Response, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byKind == nil {
		s.byKind = map[string]*outcomes{}
	}
	o := s.byKind[kind]
	if o == nil {
		o = &outcomes{codes: map[int]int{}}
		s.byKind[kind] = o
	}
	switch {
	case lost(res, err):
		o.lost++
		return
	case res.StatusCode < 300:
		o.ok++
	case res.StatusCode < 400:
		o.redirect++
	case res.StatusCode < 500:
		o.client++
	default:
		o.server++
		if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
			o.bad5xx = append(o.bad5xx, fmt.Sprintf("%s %s: %d", res.Request.Method, res.Request.URL.Path, res.StatusCode))
		}
	}
	o.codes[res.StatusCode]++
}

// rows returns the kinds in name order with their outcomes.
func (s *stats) rows() ([]string, map[string]outcomes) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]outcomes{}
	var kinds []string
	for k, o := range s.byKind {
		kinds = append(kinds, k)
		out[k] = *o
	}
	sort.Strings(kinds)
	return kinds, out
}
