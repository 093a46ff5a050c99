package gifting

import (
	"fmt"
	"slices"
)

// Scope is what an API key may do (docs/security.md, "Keys and scopes").
// Every route needs exactly one: a key holding it may call the route.
type Scope string

// The scopes, each one kind of call.
const (
	// ScopeRead is every GET of the organization's data.
	ScopeRead Scope = "read"
	// ScopeWrite is every call that changes data but moves no credits.
	ScopeWrite Scope = "write"
	// ScopeSpend is every call that moves credits: add-recipient, launch,
	// and completing or deleting a campaign (its unclaimed recipients'
	// credits come back).
	ScopeSpend Scope = "spend"
	// ScopeAdmin is the organization's settings: API keys and webhooks;
	// and the erasure of a person, which no call can undo.
	ScopeAdmin Scope = "admin"
)

// Scopes lists every scope, in the order they are shown.
var Scopes = []Scope{ScopeRead, ScopeWrite, ScopeSpend, ScopeAdmin}

// CodeInsufficientScope is the error of a call outside the key's scopes
// (403): the message names the scope the call needs.
const CodeInsufficientScope Code = "INSUFFICIENT_SCOPE"

// InsufficientScope is the error of a key that lacks scope.
func InsufficientScope(scope Scope) *Error {
	return &Error{Code: CodeInsufficientScope,
		Message: fmt.Sprintf("this API key lacks the %q scope this call needs; an admin key can create a key that has it", scope),
		Details: map[string]string{"scope": string(scope)}}
}

// Granted is the scopes a key holds: its own, or all of them for a key
// made before scopes existed (which keeps working as it did).
func Granted(scopes []Scope) []Scope {
	if len(scopes) == 0 {
		return Scopes
	}
	return scopes
}

// Holds reports whether p's key holds scope.
func (p Principal) Holds(scope Scope) bool { return slices.Contains(Granted(p.Scopes), scope) }
