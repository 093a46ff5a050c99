package access

import (
	"context"
	"slices"

	"github.com/giftcampaign/service/shared/gifting"
)

// The operator's use cases: the people who run the service create,
// suspend and resume organizations, issue an organization's first admin
// key, and read every organization's usage for billing. The operator API
// (shared/httpapi, /api/operator/...) and the admin CLI (infra/admin)
// both call these, so nothing is implemented twice.

// CodeOrganizationSuspended is the answer (403) to a key of a suspended
// organization.
const CodeOrganizationSuspended gifting.Code = "ORGANIZATION_SUSPENDED"

// Suspended is the error of a call with a key of a suspended organization.
func Suspended() error {
	return gifting.Errorf(CodeOrganizationSuspended,
		"this organization is suspended: its API keys answer nothing until the service's operator resumes it")
}

// OrgSummary is an organization as the operator lists it: its profile,
// whether it is suspended and its usage of a month.
type OrgSummary struct {
	Org       gifting.Organization `json:"organization"`
	Suspended bool                 `json:"suspended"`
	Usage     Usage                `json:"usage"`
}

// OrgPage is a page of organizations in id order; Next is the id to
// start the next page after ("" on the last).
type OrgPage struct {
	Orgs []OrgSummary `json:"items"`
	Next string       `json:"nextCursor"`
}

// MaxOrgPage bounds a page of the operator's organization list.
const MaxOrgPage = 100

// Suspend suspends orgID: its keys answer 403 ORGANIZATION_SUSPENDED
// (within the key cache time), its scheduled emails are held, its
// recipients' pages stay up. Suspending twice is harmless. Errors:
// NOT_FOUND.
func (a *App) Suspend(ctx context.Context, orgID string) error {
	return orgShown(a.store.SetSuspended(ctx, orgID, true), orgID)
}

// Resume lifts orgID's suspension; its held emails go out at the next
// tick. Resuming an organization not suspended is harmless. Errors:
// NOT_FOUND.
func (a *App) Resume(ctx context.Context, orgID string) error {
	return orgShown(a.store.SetSuspended(ctx, orgID, false), orgID)
}

// IssueFirstAdminKey makes orgID's first key, holding every scope, for
// userID, and returns its secret (shown this once). With it the tenant
// makes its other keys itself (POST /api-keys). An organization that has
// a live admin key already gets none: CONFLICT (its admins make keys).
// Errors: NOT_FOUND, CONFLICT, VALIDATION_FAILED (no user).
func (a *App) IssueFirstAdminKey(ctx context.Context, orgID, userID, name string) (string, gifting.APIKey, error) {
	if userID == "" || !gifting.ValidID(userID) {
		var p gifting.Problems
		p.Add("userId", "is required: 1 to 128 letters, digits or . _ : -")
		return "", gifting.APIKey{}, p.Err()
	}
	if _, err := a.Org(ctx, orgID); err != nil {
		return "", gifting.APIKey{}, err
	}
	keys, err := a.store.Keys(ctx, orgID)
	if err != nil {
		return "", gifting.APIKey{}, err
	}
	if err := CheckFirstAdminKey(keys); err != nil {
		return "", gifting.APIKey{}, err
	}
	if name == "" {
		name = "first admin key"
	}
	return a.CreateAPIKey(ctx, orgID, userID, name)
}

// CheckFirstAdminKey refuses a first admin key to an organization whose
// keys (all of them) include a live one holding admin (CONFLICT).
func CheckFirstAdminKey(keys []gifting.APIKey) error {
	for _, k := range keys {
		if k.RevokedAt == nil && slices.Contains(gifting.Granted(k.Scopes), gifting.ScopeAdmin) {
			return gifting.Errorf(gifting.CodeConflict, "the organization has a live admin key already; its admins make further keys")
		}
	}
	return nil
}

// Orgs lists organizations in id order after after ("" from the first),
// up to limit (1 to MaxOrgPage), each with its usage of month ("" for the
// current one). Errors: VALIDATION_FAILED.
func (a *App) Orgs(ctx context.Context, month, after string, limit int) (OrgPage, error) {
	m, err := ParseMonth(month, a.store.Now())
	if err != nil {
		return OrgPage{}, err
	}
	if limit < 1 || limit > MaxOrgPage {
		var p gifting.Problems
		p.Add("limit", "must be from 1 to 100")
		return OrgPage{}, p.Err()
	}
	return a.store.Orgs(ctx, m, after, limit)
}

// suspendedShown is the outcome of resolving a key of orgID: Suspended
// when the organization is.
func (a *App) suspendedShown(ctx context.Context, orgID string) error {
	suspended, err := a.store.OrgSuspended(ctx, orgID)
	if err != nil {
		return err
	}
	if suspended {
		return Suspended()
	}
	return nil
}
