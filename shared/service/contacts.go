package service

import (
	"context"
	"log/slog"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/contactimport"
	"github.com/giftcampaign/service/shared/jobs"
)

// Contacts returns the contact slice's use cases: the contacts group's
// handlers call them, and the job that empties a deleted list runs through
// them (RunContactJobs).
func (s *Service) Contacts() *contact.App { return s.contacts }

// DeleteContactList deletes org's list (contact.App.DeleteList): the
// audience copy takes back a list it created when the copy cannot start.
func (s *Service) DeleteContactList(ctx context.Context, orgID, listID string) error {
	return s.contacts.DeleteList(ctx, orgID, listID)
}

// contactJobs starts the contact slice's jobs on the service's queue.
type contactJobs struct{ s *Service }

// StartListDelete enqueues the job that removes a deleted list's
// memberships. Its message only makes that start at once: the tombstone
// written with the delete is due for the scheduler tick, which finishes
// the work when the message is lost; so a failure is logged, not
// returned.
func (j contactJobs) StartListDelete(ctx context.Context, orgID, listID string) {
	if err := j.s.enqueue(ctx, jobs.Job{Kind: contact.JobListDelete, OrgID: orgID, Ref: listID}); err != nil {
		Logger(ctx).WarnContext(ctx, "list delete job not enqueued; the scheduler will remove the memberships",
			slog.String("organizationId", orgID), slog.String("listId", listID), slog.String("error", err.Error()))
	}
}

// runListDelete does one slice of a contact list's deletion.
func (s *Service) runListDelete(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	done, err := s.contacts.RunListDelete(ctx, j.OrgID, j.Ref)
	if err != nil || done {
		return nil, err
	}
	return &j, nil
}

// Imports returns the CSV import of contacts: the contacts group's handlers
// start and read jobs through it, and its files are read by RunContactJobs.
func (s *Service) Imports() *contactimport.App { return s.imports }

// StartImport enqueues the job that reads an import's file.
func (j contactJobs) StartImport(ctx context.Context, orgID, jobID string) error {
	return j.s.enqueue(ctx, jobs.Job{Kind: contactimport.JobKind, OrgID: orgID, Ref: jobID})
}

// runImport reads a slice of an import's file (contactimport.App.RunSlice).
func (s *Service) runImport(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	more, err := s.imports.RunSlice(ctx, j.OrgID, j.Ref)
	if err != nil || !more {
		return nil, err
	}
	return &j, nil
}
