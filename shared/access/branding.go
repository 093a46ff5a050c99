package access

import (
	"context"

	"github.com/giftcampaign/service/shared/branding"
	"github.com/giftcampaign/service/shared/gifting"
)

// Branding returns an organization's branding, the zero one when it has
// set none. Errors: NOT_FOUND.
func (a *App) Branding(ctx context.Context, orgID string) (gifting.Branding, error) {
	org, err := a.Org(ctx, orgID)
	if err != nil || org.Branding == nil {
		return gifting.Branding{}, err
	}
	return *org.Branding, nil
}

// SetBranding replaces an organization's branding with b, checked
// (branding.Check: https logo, contrast-safe colour, an email reply-to),
// and returns it as stored. Errors: VALIDATION_FAILED, NOT_FOUND.
func (a *App) SetBranding(ctx context.Context, orgID string, b gifting.Branding) (gifting.Branding, error) {
	if err := branding.Check(&b); err != nil {
		return gifting.Branding{}, err
	}
	now := a.store.Now()
	b.UpdatedAt = &now
	return b, orgShown(a.store.PutBranding(ctx, orgID, b), orgID)
}
