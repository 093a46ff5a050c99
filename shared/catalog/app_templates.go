package catalog

import (
	"context"
	"fmt"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/refcheck"
)

// Template returns a template orgID sees: its own or the service
// catalog's. Errors: NOT_FOUND (another organization's, or none).
func (a *App) Template(ctx context.Context, orgID, templateID string) (Template, error) {
	t, err := a.store.VisibleTemplate(ctx, orgID, templateID)
	return t, notFound(err, gifting.RefTemplate, templateID)
}

// ListTemplates returns the page of the templates orgID sees (its own and
// the service catalog's) that f keeps, sorted by f.SortBy (ties by id),
// and how many it keeps.
func (a *App) ListTemplates(ctx context.Context, orgID string, f TemplateFilter, page gifting.PageRequest) ([]Template, int, error) {
	all, err := a.store.TemplatesOf(ctx, Owners(orgID, f.IsDelightloop))
	if err != nil {
		return nil, 0, err
	}
	ts, total := SelectTemplates(all, f, page)
	return ts, total, nil
}

// CreateTemplate checks t and stores it as orgID's own new template, with
// its id and times. Errors: VALIDATION_FAILED (CheckTemplate),
// PAYLOAD_TOO_LARGE.
func (a *App) CreateTemplate(ctx context.Context, orgID string, t Template) (Template, error) {
	t, err := NewTemplate(t, orgID, a.store.NewID(), a.store.Now())
	if err != nil {
		return Template{}, err
	}
	if err := a.store.CommitNewTemplate(ctx, t); err != nil {
		return Template{}, err
	}
	return t, nil
}

// UpdateTemplate applies p to orgID's own template and returns it as
// stored; a write that meets another first applies p again to the
// template as it is then. Errors: NOT_FOUND (not orgID's own: the service
// catalog's templates included), VALIDATION_FAILED (TemplatePatch.Apply).
func (a *App) UpdateTemplate(ctx context.Context, orgID, templateID string, p TemplatePatch) (Template, error) {
	for attempt := 1; ; attempt++ {
		t, err := a.store.OwnTemplate(ctx, orgID, templateID)
		if err != nil {
			return Template{}, notFound(err, gifting.RefTemplate, templateID)
		}
		seen := t.UpdatedAt
		if err := p.Apply(&t, a.store.Now()); err != nil {
			return Template{}, err
		}
		err = a.store.CommitTemplate(ctx, t, seen)
		if err == nil {
			return t, nil
		}
		if err := again(ctx, err, attempt); err != nil {
			return Template{}, fmt.Errorf("update template: %w", err)
		}
	}
}

// DeleteTemplate deletes orgID's own template for good. Errors as
// DeleteGift.
func (a *App) DeleteTemplate(ctx context.Context, orgID, templateID string) error {
	ref := gifting.Ref{Kind: gifting.RefTemplate, ID: templateID}
	drafts, err := a.unreferenced(ctx, orgID, ref)
	if err != nil {
		return err
	}
	if _, err := a.store.OwnTemplate(ctx, orgID, templateID); err != nil {
		return notFound(err, ref.Kind, ref.ID)
	}
	if err := refcheck.CheckDraftChecks(ref, drafts); err != nil {
		return err
	}
	return deleteOutcome(ref, a.store.CommitTemplateDelete(ctx, orgID, templateID, drafts))
}
