package service

import (
	"context"
	"log/slog"
	"time"

	"github.com/giftcampaign/service/shared/erasure"
	"github.com/giftcampaign/service/shared/jobs"
)

// erasureBudget is how long a request erasing a person runs the job
// itself before it answers: a person of an ordinary organization is erased
// well within it, so the answer is the receipt; past it the job goes on
// in the background (the queue, or the scheduler once its record's lease
// ends) and the answer says it is running.
const erasureBudget = 10 * time.Second

// Erase starts (or resumes, or reads, when done) the erasure of a contact
// of org and runs it for up to erasureBudget. Errors: NOT_FOUND.
func (s *Service) Erase(ctx context.Context, orgID, contactID string) (erasure.Job, error) {
	j, err := s.erasures.Start(ctx, orgID, contactID)
	if err != nil || j.Status == erasure.Done {
		return j, err
	}
	deadline := time.Now().Add(erasureBudget)
	for time.Now().Before(deadline) {
		done, err := s.erasures.RunSlice(ctx, orgID, contactID)
		if err != nil {
			return erasure.Job{}, err
		}
		if done {
			return s.erasures.Receipt(ctx, orgID, contactID)
		}
	}
	if err := s.enqueue(ctx, jobs.Job{Kind: erasure.JobErase, OrgID: orgID, Ref: contactID}); err != nil {
		Logger(ctx).WarnContext(ctx, "erasure job not enqueued; the scheduler will resume it",
			slog.String("organizationId", orgID), slog.String("contactId", contactID), slog.String("error", err.Error()))
	}
	return s.erasures.Receipt(ctx, orgID, contactID)
}

// ErasureReceipt reads a contact's erasure. Errors: NOT_FOUND.
func (s *Service) ErasureReceipt(ctx context.Context, orgID, contactID string) (erasure.Job, error) {
	return s.erasures.Receipt(ctx, orgID, contactID)
}

// runErasure does one slice of an erasure.
func (s *Service) runErasure(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	done, err := s.erasures.RunSlice(ctx, j.OrgID, j.Ref)
	if err != nil || done {
		return nil, err
	}
	return &j, nil
}
