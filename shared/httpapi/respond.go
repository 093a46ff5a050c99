package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
)

// statusOf is the one mapping from error codes to HTTP statuses.
var statusOf = map[gifting.Code]int{
	gifting.CodeValidation:           http.StatusBadRequest,
	gifting.CodeMalformed:            http.StatusBadRequest,
	gifting.CodeUnauthorized:         http.StatusUnauthorized,
	gifting.CodeInsufficientScope:    http.StatusForbidden,
	access.CodeOrganizationSuspended: http.StatusForbidden,
	access.CodeTestKeyRequired:       http.StatusForbidden,
	gifting.CodeInsufficientCredits:  http.StatusPaymentRequired,
	gifting.CodeNotFound:             http.StatusNotFound,
	gifting.CodeMethodNotAllowed:     http.StatusMethodNotAllowed,
	gifting.CodeConflict:             http.StatusConflict,
	gifting.CodeTooLarge:             http.StatusRequestEntityTooLarge,
	gifting.CodeIdempotencyMismatch:  http.StatusUnprocessableEntity,
	gifting.CodeRateLimited:          http.StatusTooManyRequests,
	gifting.CodeUnsupportedMedia:     http.StatusUnsupportedMediaType,
	gifting.CodeUnavailable:          http.StatusServiceUnavailable,
	gifting.CodeInternal:             http.StatusInternalServerError,
}

// messageOf is the short, stable `message` of each error status.
var messageOf = map[int]string{
	http.StatusBadRequest:            "Bad Request",
	http.StatusUnauthorized:          "Unauthorized",
	http.StatusForbidden:             "Forbidden",
	http.StatusPaymentRequired:       "Insufficient Credits",
	http.StatusNotFound:              "Not Found",
	http.StatusMethodNotAllowed:      "Method Not Allowed",
	http.StatusConflict:              "Conflict",
	http.StatusRequestEntityTooLarge: "Payload Too Large",
	http.StatusUnprocessableEntity:   "Unprocessable Entity",
	http.StatusTooManyRequests:       "Too Many Requests",
	http.StatusUnsupportedMediaType:  "Unsupported Media Type",
	http.StatusServiceUnavailable:    "Service Unavailable",
	http.StatusInternalServerError:   "Internal Server Error",
}

// retryAfter is the Retry-After of a 503, in seconds: the store has already
// retried with backoff, so a client should leave it a moment.
const retryAfter = "2"

// maxLoggedError bounds the error text of one log line; errors quote ids,
// which are bounded, but a log line must not grow with anything a client
// sends.
const maxLoggedError = 1024

// ErrorBody is the shape of every error response.
type ErrorBody struct {
	Success    bool   `json:"success"`
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
	Error      string `json:"error"`
	// Code is the stable machine code. The 401 body leaves it out: the original
	// interface gives that body exactly, with four fields (docs/api.md).
	Code    gifting.Code      `json:"code,omitempty"`
	Details map[string]string `json:"details,omitempty"`
}

// Envelope is the enveloped response style (docs/api.md).
type Envelope struct {
	Success    bool   `json:"success"`
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
	Data       any    `json:"data"`
}

// writeJSON writes v as the JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := marshalWire(v)
	if err != nil {
		// A body that cannot be encoded is a bug: say so as every
		// internal error is said, never half a body.
		status, body = http.StatusInternalServerError, []byte(`{"success":false,"statusCode":500,"message":"Internal Server Error","error":"An internal error occurred.","code":"INTERNAL"}`+"\n")
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// The status is sent; a write error can only be a broken connection,
	// which there is nobody left to tell.
	_, _ = w.Write(body)
}

// writeEnvelope writes the enveloped style with data.
func writeEnvelope(w http.ResponseWriter, status int, message string, data any) {
	writeJSON(w, status, Envelope{Success: true, StatusCode: status, Message: message, Data: data})
}

// statusClientClosed is the request log's status of a request whose client
// went away before the answer (nginx's 499): nobody receives an answer, and
// it is no server error.
const statusClientClosed = 499

// writeError writes err in the error shape. Internal errors are logged with
// the request id and answered with a generic text. A request whose client
// went away (its context cancelled: whatever failed, failed for that) is
// one quiet line and the status 499 in the request log, no internal error.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(r.Context().Err(), context.Canceled) {
		loggerFrom(r.Context()).DebugContext(r.Context(), "the client went away before the answer", slog.String("error", gifting.Clip(err.Error(), maxLoggedError)))
		w.WriteHeader(statusClientClosed)
		return
	}
	code := gifting.ErrorCode(err)
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	body := ErrorBody{StatusCode: status, Message: messageOf[status], Error: gifting.ErrorMessage(err), Code: code}
	var e *gifting.Error
	if asError(err, &e) {
		body.Details = e.Details
	}
	if code == gifting.CodeUnauthorized {
		body.Code, body.Error = "", "Invalid or missing API key"
	}
	switch status {
	case http.StatusInternalServerError:
		loggerFrom(r.Context()).ErrorContext(r.Context(), "internal error", slog.String("error", gifting.Clip(err.Error(), maxLoggedError)))
		body.Error = "An internal error occurred. Quote request id " + requestIDFrom(r.Context()) + " when reporting it."
	case http.StatusServiceUnavailable:
		loggerFrom(r.Context()).WarnContext(r.Context(), "unavailable", slog.String("error", gifting.Clip(err.Error(), maxLoggedError)))
		w.Header().Set("Retry-After", retryAfter)
	}
	writeJSON(w, status, body)
}
