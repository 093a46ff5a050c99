package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Defect 9: a client that declared a body and sent less held a connection
// (and the handler reading it) open for ever: the local server had no read
// timeout.
func TestDefectLocalServerNoReadTimeout(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := newHTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, "body not read", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	// 100 bytes declared, 10 sent, then silence.
	if _, err := io.WriteString(conn, "POST /x HTTP/1.1\r\nHost: local\r\nContent-Length: 100\r\n\r\n0123456789"); err != nil {
		t.Fatal(err)
	}
	limit := readTimeout + 5*time.Second
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	// The server must give up on the body: it answers (400) or closes.
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection is still open after %v", limit)
	}
	if err == nil {
		res.Body.Close()
	}
	if took := time.Since(start); took < readTimeout-time.Second {
		t.Errorf("the server gave up after %v, before its read timeout %v", took, readTimeout)
	}
}

func TestLocalServerLimits(t *testing.T) {
	t.Parallel()
	hs := newHTTPServer(http.NotFoundHandler())
	for name, got := range map[string]time.Duration{
		"ReadHeaderTimeout": hs.ReadHeaderTimeout, "ReadTimeout": hs.ReadTimeout,
		"WriteTimeout": hs.WriteTimeout, "IdleTimeout": hs.IdleTimeout,
	} {
		if got <= 0 || got > time.Minute {
			t.Errorf("%s = %v, want a limit of at most a minute", name, got)
		}
	}
}
