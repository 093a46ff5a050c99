package service

import (
	"context"
	"log/slog"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
)

// DeleteStore is the storage of the deletes of resources campaigns refer
// to: templates, gifts and contact lists.
type DeleteStore interface {
	// CampaignsReferring returns the org's campaigns (deleted ones too)
	// that refer to ref.
	CampaignsReferring(ctx context.Context, orgID string, ref gifting.Ref) ([]campaign.Campaign, error)
	DeleteTemplate(ctx context.Context, orgID, templateID string, drafts []campaign.Campaign) error
	DeleteGift(ctx context.Context, orgID, giftID string, drafts []campaign.Campaign) error
	DeleteContactList(ctx context.Context, orgID, listID string, drafts []campaign.Campaign) error
	// DropListMembers removes one slice of a deleted list's memberships.
	DropListMembers(ctx context.Context, orgID, listID string) (done bool, err error)
}

// DeleteTemplate deletes org's own template for good.
//
// Errors: NOT_FOUND (not org's own: another org's or the service
// catalog's), CONFLICT (a campaign past draft refers to it, named in the
// message; or a referring draft changed meanwhile).
func (s *Service) DeleteTemplate(ctx context.Context, orgID, templateID string) error {
	drafts, err := s.unreferenced(ctx, orgID, gifting.Ref{Kind: gifting.RefTemplate, ID: templateID})
	if err != nil {
		return err
	}
	return s.store.DeleteTemplate(ctx, orgID, templateID, drafts)
}

// DeleteGift deletes org's own gift for good. Errors as DeleteTemplate.
func (s *Service) DeleteGift(ctx context.Context, orgID, giftID string) error {
	drafts, err := s.unreferenced(ctx, orgID, gifting.Ref{Kind: gifting.RefGift, ID: giftID})
	if err != nil {
		return err
	}
	return s.store.DeleteGift(ctx, orgID, giftID, drafts)
}

// DeleteContactList deletes org's list: the list is gone when it returns
// (404 from then on) and a job removes its memberships in slices, each
// contact staying with the list taken out of its listIds. The job's
// message only makes that start at once: the tombstone written with the
// delete is due for the scheduler tick, which finishes the work when the
// message is lost. Errors as DeleteTemplate.
func (s *Service) DeleteContactList(ctx context.Context, orgID, listID string) error {
	drafts, err := s.unreferenced(ctx, orgID, gifting.Ref{Kind: gifting.RefContactList, ID: listID})
	if err != nil {
		return err
	}
	if err := s.store.DeleteContactList(ctx, orgID, listID, drafts); err != nil {
		return err
	}
	if err := s.enqueue(ctx, jobs.Job{Kind: gifting.JobContactListDelete, OrgID: orgID, Ref: listID}); err != nil {
		Logger(ctx).WarnContext(ctx, "list delete job not enqueued; the scheduler will remove the memberships",
			slog.String("organizationId", orgID), slog.String("listId", listID), slog.String("error", err.Error()))
	}
	return nil
}

// unreferenced returns the draft campaigns that refer to ref, or
// campaign.Unreferenced's CONFLICT.
func (s *Service) unreferenced(ctx context.Context, orgID string, ref gifting.Ref) ([]campaign.Campaign, error) {
	refs, err := s.store.CampaignsReferring(ctx, orgID, ref)
	if err != nil {
		return nil, err
	}
	return campaign.Unreferenced(ref, refs)
}

// runListDelete does one slice of a contact list's deletion.
func (s *Service) runListDelete(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	done, err := s.store.DropListMembers(ctx, j.OrgID, j.Ref)
	if err != nil || done {
		return nil, err
	}
	return &j, nil
}
