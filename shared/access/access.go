// Package access is the slice of organizations, their API keys and their
// rate limits: who may call the API, as whom, and how often. Its rules
// (what a new organization must have, which limits may be set) and its
// answers to the user (NOT_FOUND, CONFLICT, UNAUTHORIZED, VALIDATION_FAILED)
// are here; storage (shared/dynamo) loads and commits and reports what it
// found as the sentinel errors below.
package access

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// The outcomes storage reports.
var (
	// ErrNoOrg: the organization does not exist.
	ErrNoOrg = errors.New("no such organization")
	// ErrOrgExists: an organization with that id exists already.
	ErrOrgExists = errors.New("the organization exists")
	// ErrNoKey: the organization has no key with that id.
	ErrNoKey = errors.New("no such API key")
	// ErrUnknownKey: no live key has that secret (unknown or revoked).
	ErrUnknownKey = errors.New("unknown or revoked API key")
)

// NewOrg is what an operator gives to create an organization.
type NewOrg struct {
	OrgID    string // optional; generated when empty
	Name     string
	Domain   string
	Credits  int64
	Budget   gifting.Budget
	Products []string
	// Unlisted keeps the organization out of the operator's list (a
	// sandbox twin: it is billed nothing and belongs to its live one).
	Unlisted bool
}

// Check validates in (its OrgID set) and fills in its defaults: the
// currency (USD) and the products (none). Errors: VALIDATION_FAILED.
func (in *NewOrg) Check() error {
	var p gifting.Problems
	if !gifting.ValidOrgID(in.OrgID) || in.OrgID == gifting.CatalogOrgID {
		p.Add("orgId", "must be 2-63 lower-case letters, digits or dashes, and not reserved")
	}
	if strings.TrimSpace(in.Name) == "" {
		p.Add("name", "is required")
	}
	if in.Credits < 0 || in.Credits > wallet.MaxTopUp {
		p.Add("credits", fmt.Sprintf("must be from 0 to %d", wallet.MaxTopUp))
	}
	if in.Budget.Currency == "" {
		in.Budget.Currency = "USD"
	}
	if !gifting.ValidCurrency(in.Budget.Currency) {
		p.Add("budget.currency", "must be a three-letter ISO 4217 code")
	}
	if in.Products == nil {
		in.Products = []string{}
	}
	return p.Err()
}

// CheckRateLimits validates an organization's own rate limits: each class
// rate-limited (gifting.DefaultRateLimits) and each limit at least 1.
// Errors: VALIDATION_FAILED.
func CheckRateLimits(limits map[gifting.RateClass]int) error {
	var p gifting.Problems
	for class, n := range limits {
		if _, ok := gifting.DefaultRateLimits[class]; !ok {
			p.Add("rateLimits."+string(class), "is not a rate-limited class")
		} else if n < 1 {
			p.Add("rateLimits."+string(class), "must be at least 1")
		}
	}
	return p.Err()
}

// Store is what the slice needs of storage.
type Store interface {
	Now() time.Time
	NewID() string
	// CreateOrg writes a checked organization with its wallet (and the
	// ledger entry of its initial credits). ErrOrgExists.
	CreateOrg(ctx context.Context, in NewOrg) (gifting.Organization, wallet.Wallet, error)
	// Org reads an organization's profile. ErrNoOrg.
	Org(ctx context.Context, orgID string) (gifting.Organization, error)
	// PutBranding replaces the organization's branding, or returns
	// ErrNoOrg.
	PutBranding(ctx context.Context, orgID string, b gifting.Branding) error
	// CreateKey makes a new key with k's organization, user, name, scopes
	// and creator, and returns its secret, which only its hash and first
	// characters are kept of. ErrNoOrg.
	CreateKey(ctx context.Context, k gifting.APIKey) (string, gifting.APIKey, error)
	// RevokeAPIKey revokes a key by id (twice is harmless). ErrNoKey.
	RevokeAPIKey(ctx context.Context, orgID, keyID string) (gifting.APIKey, error)
	// KeyBySecret reads the live key a secret is, with its last use.
	// ErrUnknownKey (unknown or revoked).
	KeyBySecret(ctx context.Context, secret string) (gifting.APIKey, error)
	// TouchKey records a use of the key at, unless one at or after since
	// is recorded already.
	TouchKey(ctx context.Context, secret string, at, since time.Time) error
	// Keys reads every key of an organization (revoked ones included),
	// oldest first, with their last uses.
	Keys(ctx context.Context, orgID string) ([]gifting.APIKey, error)
	// SetRateLimits replaces an organization's own limits. ErrNoOrg.
	SetRateLimits(ctx context.Context, orgID string, limits map[gifting.RateClass]int) error
	// CountRequest counts one request against the class's window.
	CountRequest(ctx context.Context, orgID string, class gifting.RateClass, limit int) (gifting.RequestCount, error)
	// Usage reads orgID's usage counters of month (YYYY-MM), zeros when
	// it has none.
	Usage(ctx context.Context, orgID, month string) (Usage, error)
	// CountCall adds one API call to orgID's usage of month.
	CountCall(ctx context.Context, orgID, month string) error
	// SetSuspended suspends orgID or lifts its suspension. ErrNoOrg.
	SetSuspended(ctx context.Context, orgID string, suspended bool) error
	// OrgSuspended reports whether orgID is suspended; false when its
	// profile is not found (the read may lag a moment behind: an
	// organization created a moment ago is not suspended).
	OrgSuspended(ctx context.Context, orgID string) (bool, error)
	// Orgs reads a page of organizations in id order after after, each
	// with its usage of month.
	Orgs(ctx context.Context, month, after string, limit int) (OrgPage, error)
}
