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

// CreateAPIKey makes a new key for userID in orgID holding every scope
// (the operator's: admin CLI, seed) and returns its secret (shown this
// once) with its record. Errors: NOT_FOUND (no organization).
func (a *App) CreateAPIKey(ctx context.Context, orgID, userID, name string) (string, gifting.APIKey, error) {
	secret, k, err := a.store.CreateKey(ctx, gifting.APIKey{OrgID: orgID, UserID: userID, Name: name})
	return secret, k, orgShown(err, orgID)
}

// CreateKey makes a key of by's organization (of its sandbox twin for
// in.Mode test, made with the first test key) with in's name and scopes,
// created by by's key (CheckNewKey: a key never grants a scope it does
// not hold), and returns its secret, shown this once.
func (a *App) CreateKey(ctx context.Context, by gifting.Principal, in NewKey) (string, gifting.APIKey, error) {
	scopes, err := CheckNewKey(by, in)
	if err != nil {
		return "", gifting.APIKey{}, err
	}
	orgID, err := keyOrg(by, in.Mode)
	if err != nil {
		return "", gifting.APIKey{}, err
	}
	if orgID != by.OrgID {
		// The first test key makes the sandbox twin.
		if err := a.ensureSandbox(ctx, by.OrgID); err != nil {
			return "", gifting.APIKey{}, err
		}
	}
	secret, k, err := a.store.CreateKey(ctx, gifting.APIKey{OrgID: orgID, UserID: by.UserID, Name: in.Name,
		Scopes: scopes, CreatedBy: by.KeyID})
	return secret, k, orgShown(err, orgID)
}

// Keys lists the keys of orgID, oldest first, revoked ones included (never
// a secret).
func (a *App) Keys(ctx context.Context, orgID string) ([]gifting.APIKey, error) {
	return a.store.Keys(ctx, orgID)
}

// RevokeKey revokes a key of by's organization; revoking twice is
// harmless. The organization's last live admin key cannot revoke itself
// (CheckRevoke: CONFLICT), so the organization keeps a key that can make
// keys. Errors: NOT_FOUND (no such key in the organization).
func (a *App) RevokeKey(ctx context.Context, by gifting.Principal, keyID string) (gifting.APIKey, error) {
	if keyID == by.KeyID {
		keys, err := a.store.Keys(ctx, by.OrgID)
		if err != nil {
			return gifting.APIKey{}, err
		}
		if err := CheckRevoke(keys, keyID); err != nil {
			return gifting.APIKey{}, err
		}
	}
	return a.RevokeAPIKey(ctx, by.OrgID, keyID)
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

// Resolve returns who a key's secret belongs to, and records the use when
// the last one recorded is older than UseRecordedEvery (so a key's
// lastUsedAt costs at most one write a minute however busy it is).
// Errors: UNAUTHORIZED for an unknown or revoked key (the same answer for
// both, so a caller learns nothing about keys it does not hold).
func (a *App) Resolve(ctx context.Context, secret string) (gifting.Principal, error) {
	k, err := a.store.KeyBySecret(ctx, secret)
	if errors.Is(err, ErrUnknownKey) {
		return gifting.Principal{}, Unauthorized()
	}
	if err != nil {
		return gifting.Principal{}, err
	}
	// A suspended organization's keys do nothing (403, not 401: the key
	// is valid). Only a resolution reads this; a resolved key is cached,
	// so a suspension applies within the key cache time.
	// A sandbox is suspended with its live organization.
	if err := a.suspendedShown(ctx, gifting.LiveOrgID(k.OrgID)); err != nil {
		return gifting.Principal{}, err
	}
	now := a.store.Now()
	if since := now.Add(-UseRecordedEvery); k.LastUsedAt == nil || k.LastUsedAt.Before(since) {
		if err := a.store.TouchKey(ctx, secret, now, since); err != nil {
			return gifting.Principal{}, err
		}
	}
	return gifting.Principal{OrgID: k.OrgID, UserID: k.UserID, KeyID: k.KeyID, Scopes: k.Scopes}, nil
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
