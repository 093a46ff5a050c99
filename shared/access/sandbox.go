package access

import (
	"context"
	"errors"

	"github.com/giftcampaign/service/shared/gifting"
)

// SandboxCredits is what a sandbox twin's wallet holds when it is made and
// after each reset: free credits, which buy nothing real (the twin's
// emails are captured and its gifts never ship).
const SandboxCredits = 100_000

// The modes of a key: a live key reaches its organization, a test key the
// organization's sandbox twin (gifting.SandboxOrgID).
const (
	ModeLive = "live"
	ModeTest = "test"
)

// keyOrg is the organization a key that by asks for with mode belongs to:
// by's own for the default mode, its sandbox twin for "test". A test key
// makes test keys only: a sandbox never reaches live data.
// Errors: VALIDATION_FAILED naming "mode".
func keyOrg(by gifting.Principal, mode string) (string, error) {
	var p gifting.Problems
	switch {
	case mode != "" && mode != ModeLive && mode != ModeTest:
		p.Add("mode", "must be live or test")
	case mode == ModeTest:
		return gifting.SandboxOrgID(by.OrgID), nil
	case mode == ModeLive && gifting.IsSandboxOrg(by.OrgID):
		p.Add("mode", "a test key makes test keys only: make live keys with a live admin key")
	}
	if err := p.Err(); err != nil {
		return "", err
	}
	return by.OrgID, nil
}

// ensureSandbox makes the sandbox twin of orgID if it does not exist yet:
// an organization of its own (not in the operator's list) named after the
// live one, with its budget, products and branding, and a wallet of SandboxCredits
// whose ledger holds their top-up. Errors: NOT_FOUND (no live
// organization).
func (a *App) ensureSandbox(ctx context.Context, orgID string) error {
	twin := gifting.SandboxOrgID(orgID)
	if _, err := a.store.Org(ctx, twin); err == nil || !errors.Is(err, ErrNoOrg) {
		return err
	}
	live, err := a.Org(ctx, gifting.LiveOrgID(orgID))
	if err != nil {
		return err
	}
	_, _, err = a.store.CreateOrg(ctx, NewOrg{OrgID: twin, Name: live.OrgName + " (sandbox)", Domain: live.Domain,
		Credits: SandboxCredits, Budget: live.Budget, Products: live.Products, Unlisted: true})
	switch {
	case errors.Is(err, ErrOrgExists):
		return nil // made a moment ago by another key's creation
	case err != nil || live.Branding == nil:
		return err
	}
	// Its pages and emails look as the live ones do from the start (a
	// test key may set its own).
	return a.store.PutBranding(ctx, twin, *live.Branding)
}

// CodeTestKeyRequired is the answer (403) to a sandbox route called with
// a live key.
const CodeTestKeyRequired gifting.Code = "TEST_KEY_REQUIRED"

// RequireTestKey refuses a live key's call of a sandbox route: the
// sandbox's routes (reset, captured emails, advance) act on a sandbox only.
func RequireTestKey(p gifting.Principal) error {
	if gifting.IsSandboxOrg(p.OrgID) {
		return nil
	}
	return gifting.Errorf(CodeTestKeyRequired,
		"this route is the sandbox's: call it with a test key (gcs_test_...), made with POST /api-keys and mode test")
}
