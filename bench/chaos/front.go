package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// lostHeader marks the front's own 502: the API process died with the request in it, so the caller
// cannot know whether it took effect (a lost answer).
const lostHeader = "X-Chaos-Lost"

// front is the run's API Gateway: one address (the PUBLIC_BASE_URL of every API process, so the emails'
// links lead here too) that hands each request to the next API process that is up. A process that
// refuses the connection (killed, restarting) has not seen the request, which goes to the next one; a
// process that dies with the request in it leaves the caller a 502 with lostHeader, as API Gateway
// answers when a function's instance crashes.
type front struct {
	c    *cluster
	url  string
	srv  *http.Server
	next atomic.Uint64
	tr   *http.Transport
}

// frontWait is how long the front holds a request while no API process is up (both restarting).
const frontWait = 10 * time.Second

func newFront(c *cluster) (*front, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &front{c: c, url: "http://" + ln.Addr().String(),
		tr: &http.Transport{MaxIdleConnsPerHost: 32, IdleConnTimeout: 30 * time.Second, ResponseHeaderTimeout: 40 * time.Second}}
	proxy := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.Out.URL.Scheme, r.Out.URL.Host = "http", "api" },
		Transport: f,
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			w.Header().Set(lostHeader, err.Error())
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	f.srv = &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	return f, nil
}

// RoundTrip sends req to the API processes in turn until one takes the connection.
func (f *front) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
	}
	deadline := time.Now().Add(frontWait)
	for {
		procs := f.c.procs
		start := int(f.next.Add(1))
		for i := range procs {
			p := procs[(start+i)%len(procs)]
			if !p.up() {
				continue
			}
			out := req.Clone(req.Context())
			out.URL.Host = "127.0.0.1:" + strconv.Itoa(p.port)
			out.Host = req.Host
			out.Body = io.NopCloser(bytes.NewReader(body))
			// A kept-alive connection to a killed process fails before anything is written; GetBody
			// lets the transport send the request again on a new connection.
			out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			out.ContentLength = int64(len(body))
			res, err := f.tr.RoundTrip(out)
			if err == nil || !refused(err) {
				return res, err
			}
		}
		if time.Now().After(deadline) || req.Context().Err() != nil {
			return &http.Response{StatusCode: http.StatusServiceUnavailable, Header: http.Header{"Retry-After": {"1"}},
				Body: io.NopCloser(bytes.NewReader(nil)), Request: req}, nil
		}
		select {
		case <-req.Context().Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// refused reports whether err means the request never reached a process.
func refused(err error) bool {
	var op *net.OpError
	return errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &op) && op.Op == "dial")
}

func (f *front) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = f.srv.Shutdown(ctx)
	f.tr.CloseIdleConnections()
}
