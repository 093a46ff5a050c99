package service

import (
	"context"
	"log/slog"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
)

// DeleteStore is the storage of the deletes of resources campaigns refer
// to that are not yet a slice's: contact lists (templates and gifts are
// the catalog slice's).
type DeleteStore interface {
	// CampaignsReferring returns the org's campaigns (deleted ones too)
	// that refer to ref.
	CampaignsReferring(ctx context.Context, orgID string, ref gifting.Ref) ([]campaign.Campaign, error)
	DeleteContactList(ctx context.Context, orgID, listID string, drafts []campaign.Campaign) error
	// DropListMembers removes one slice of a deleted list's memberships.
	DropListMembers(ctx context.Context, orgID, listID string) (done bool, err error)
}

// DeleteContactList deletes org's list: the list is gone when it returns
// (404 from then on) and a job removes its memberships in slices, each
// contact staying with the list taken out of its listIds. The job's
// message only makes that start at once: the tombstone written with the
// delete is due for the scheduler tick, which finishes the work when the
// message is lost.
//
// Errors: NOT_FOUND (no such list), CONFLICT (a campaign past draft refers
// to it, named in the message; or a referring draft changed meanwhile).
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
// campaign.CheckUnreferenced's CONFLICT.
func (s *Service) unreferenced(ctx context.Context, orgID string, ref gifting.Ref) ([]campaign.Campaign, error) {
	refs, err := s.store.CampaignsReferring(ctx, orgID, ref)
	if err != nil {
		return nil, err
	}
	return campaign.CheckUnreferenced(ref, refs)
}

// runListDelete does one slice of a contact list's deletion.
func (s *Service) runListDelete(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	done, err := s.store.DropListMembers(ctx, j.OrgID, j.Ref)
	if err != nil || done {
		return nil, err
	}
	return &j, nil
}
