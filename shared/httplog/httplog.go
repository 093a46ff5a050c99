// Package httplog holds what both HTTP adapters (shared/httpapi and the
// recipient pages, shared/pages) need for their request logs.
package httplog

import "net/http"

// StatusRecorder is an http.ResponseWriter that remembers the status
// written, for the request log.
type StatusRecorder struct {
	http.ResponseWriter
	// Status is the status written: 0 before anything is, 200 when the
	// body was written without one.
	Status int
}

// WriteHeader records status and writes it.
func (r *StatusRecorder) WriteHeader(status int) {
	if r.Status == 0 {
		r.Status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

// Write records 200 when no status was written, and writes b.
func (r *StatusRecorder) Write(b []byte) (int, error) {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}
