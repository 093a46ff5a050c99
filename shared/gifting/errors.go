// Package gifting holds the domain of the Gift Campaign Service: the resources
// of the API (docs/api.md) with their JSON names, their states, and the error
// codes every layer speaks. It imports no AWS package, so the storage and HTTP
// adapters depend on it and never the other way round.
package gifting

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code. Clients branch on it; the
// HTTP layer maps each code to one status.
type Code string

// Error codes. Every error a store or service returns carries one of these;
// anything else is treated as internal.
const (
	CodeValidation          Code = "VALIDATION_FAILED"
	CodeMalformed           Code = "MALFORMED_REQUEST"
	CodeUnauthorized        Code = "UNAUTHORIZED"
	CodeNotFound            Code = "NOT_FOUND"
	CodeConflict            Code = "CONFLICT"
	CodeInsufficientCredits Code = "INSUFFICIENT_CREDITS"
	CodeIdempotencyMismatch Code = "IDEMPOTENCY_KEY_REUSED"
	CodeTooLarge            Code = "PAYLOAD_TOO_LARGE"
	CodeMethodNotAllowed    Code = "METHOD_NOT_ALLOWED"
	CodeRateLimited         Code = "RATE_LIMITED"
	CodeUnsupportedMedia    Code = "UNSUPPORTED_MEDIA_TYPE"
	CodeUnavailable         Code = "SERVICE_UNAVAILABLE"
	CodeInternal            Code = "INTERNAL"
)

// Error is a domain error: a code, a message safe to show to the caller,
// and for validation failures the problem with each field.
type Error struct {
	Code    Code
	Message string
	// Details maps a field (JSON name, or query parameter) to what is wrong
	// with it. Only set for CodeValidation.
	Details map[string]string
	// Err is the underlying failure, kept for errors.Is and errors.As (a
	// store's SDK error behind SERVICE_UNAVAILABLE); never shown to callers.
	Err error
}

// Unwrap returns the underlying failure, if any.
func (e *Error) Unwrap() error { return e.Err }

// Unavailable returns the SERVICE_UNAVAILABLE error for a failure of a
// backing service (unreachable, timing out, failing or throttling after its
// retries); err is kept for errors.As but its text is never shown.
func Unavailable(err error) *Error {
	return &Error{Code: CodeUnavailable, Message: "The service is temporarily unavailable; retry shortly.", Err: err}
}

// TooLarge is the error of a write DynamoDB refused because the item would
// pass the 400 KB an item may hold (err).
func TooLarge(err error) *Error {
	return &Error{Code: CodeTooLarge, Err: err,
		Message: "the record would be larger than the 400 KB an item may hold; send shorter texts or fewer list entries"}
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NotFound returns the NOT_FOUND error for a resource kind and id. Another
// organization's resource is reported exactly like a missing one.
func NotFound(kind, id string) *Error {
	return Errorf(CodeNotFound, "%s %q was not found", kind, id)
}

// ErrorCode returns the code of err, or CodeInternal when err carries none.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the caller-safe message of err. Internal errors get a
// generic text: their own text may hold details that must not leak.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "An internal error occurred."
}

// Problems collects per-field validation problems. The zero value is ready
// to use.
type Problems map[string]string

// Add records a problem with field unless one is already recorded, so the
// first (usually most basic) problem is the one reported.
func (p *Problems) Add(field, problem string) {
	if *p == nil {
		*p = Problems{}
	}
	if _, ok := (*p)[field]; !ok {
		(*p)[field] = problem
	}
}

// AtMost records "must be at most max characters" for field when v is
// longer than that, and reports whether it was.
func (p *Problems) AtMost(field, v string, max int) bool {
	if !tooLong(v, max) {
		return false
	}
	p.Add(field, "must be at most "+itoa(max)+" characters")
	return true
}

// Err returns a VALIDATION_FAILED error listing the problems, or nil when
// there are none.
func (p Problems) Err() error {
	if len(p) == 0 {
		return nil
	}
	return &Error{Code: CodeValidation, Message: "The request has invalid fields; see details.", Details: p}
}

// MergeProblems joins the problems p found while reading a request (a date
// that is no date) with those of validation errors, so one answer reports
// them all. An error other than VALIDATION_FAILED is returned as it is.
func MergeProblems(p Problems, errs ...error) error {
	for _, err := range errs {
		if err == nil {
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeValidation {
			return err
		}
		for field, problem := range e.Details {
			p.Add(field, problem)
		}
	}
	return p.Err()
}
