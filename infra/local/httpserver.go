package main

import (
	"net/http"
	"time"
)

// The local server's limits, sized like API Gateway's in front of the
// deployed functions (a request must arrive within seconds; an integration
// answers within 30 s), so a client that declares a body and sends less,
// or never reads the answer, cannot hold a connection open.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 60 * time.Second
	// maxHeaderBytes is API Gateway HTTP API's limit on request headers.
	maxHeaderBytes = 10 << 10
)

// newHTTPServer returns the local server of h with those limits. Bodies
// are limited by the handlers (1 MiB).
func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}
