package access

import (
	"context"
	"errors"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// App is the slice's use cases over its store.
type App struct{ store Store }

// NewApp returns the use cases over store.
func NewApp(store Store) *App { return &App{store: store} }

// CreateOrg creates an organization (an id drawn when in has none) with
// its wallet holding in.Credits. Errors: VALIDATION_FAILED, CONFLICT (the
// id is taken).
func (a *App) CreateOrg(ctx context.Context, in NewOrg) (gifting.Organization, wallet.Wallet, error) {
	if in.OrgID == "" {
		in.OrgID = strings.ToLower(a.store.NewID())
	}
	if err := in.Check(); err != nil {
		return gifting.Organization{}, wallet.Wallet{}, err
	}
	org, w, err := a.store.CreateOrg(ctx, in)
	if errors.Is(err, ErrOrgExists) {
		return org, w, gifting.Errorf(gifting.CodeConflict, "organization %q already exists", in.OrgID)
	}
	return org, w, err
}

// Org returns an organization's profile. Errors: NOT_FOUND.
func (a *App) Org(ctx context.Context, orgID string) (gifting.Organization, error) {
	org, err := a.store.Org(ctx, orgID)
	return org, orgShown(err, orgID)
}

// CreateAPIKey makes a new key for userID in orgID and returns its secret
// (shown this once) with its record. Errors: NOT_FOUND (no organization).
func (a *App) CreateAPIKey(ctx context.Context, orgID, userID, name string) (string, gifting.APIKey, error) {
	secret, k, err := a.store.CreateAPIKey(ctx, orgID, userID, name)
	return secret, k, orgShown(err, orgID)
}

// RevokeAPIKey revokes a key of orgID; revoking twice is harmless.
// Errors: NOT_FOUND (no such key in the organization).
func (a *App) RevokeAPIKey(ctx context.Context, orgID, keyID string) (gifting.APIKey, error) {
	k, err := a.store.RevokeAPIKey(ctx, orgID, keyID)
	if errors.Is(err, ErrNoKey) {
		return k, gifting.NotFound("API key", keyID)
	}
	return k, err
}

// Resolve returns who a key's secret belongs to. Errors: UNAUTHORIZED for
// an unknown or revoked key (the same answer for both, so a caller learns
// nothing about keys it does not hold).
func (a *App) Resolve(ctx context.Context, secret string) (gifting.Principal, error) {
	p, err := a.store.ResolveAPIKey(ctx, secret)
	if errors.Is(err, ErrUnknownKey) {
		return p, Unauthorized()
	}
	return p, err
}

// SetRateLimits replaces an organization's own rate limits (classes left
// out keep the defaults). Errors: VALIDATION_FAILED (CheckRateLimits),
// NOT_FOUND.
func (a *App) SetRateLimits(ctx context.Context, orgID string, limits map[gifting.RateClass]int) error {
	if err := CheckRateLimits(limits); err != nil {
		return err
	}
	return orgShown(a.store.SetRateLimits(ctx, orgID, limits), orgID)
}

// CountRequest counts one request of orgID in class against limit.
func (a *App) CountRequest(ctx context.Context, orgID string, class gifting.RateClass, limit int) (gifting.RequestCount, error) {
	return a.store.CountRequest(ctx, orgID, class, limit)
}

// Unauthorized is the answer to a request without a live key.
func Unauthorized() error {
	return gifting.Errorf(gifting.CodeUnauthorized, "Invalid or missing API key")
}

// orgShown is err with ErrNoOrg shown as NOT_FOUND naming orgID.
func orgShown(err error, orgID string) error {
	if errors.Is(err, ErrNoOrg) {
		return gifting.NotFound("organization", orgID)
	}
	return err
}
