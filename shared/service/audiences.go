package service

import (
	"context"
	"fmt"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
)

// The audience slice (shared/audience) holds the audiences' use cases and
// jobs; the service builds its App (New) with the two ports beyond storage
// it wires here: the job queue, and the contact lists an audience is
// copied into (the contact slice's use cases).

// newAudiences is the audience slice's use cases over the service's store
// and queue.
func (s *Service) newAudiences() *audience.App {
	return audience.NewApp(s.store, audience.Config{
		Jobs: audienceJobs{s}, Lists: contactLists{s}, Log: s.log, RequestLog: Logger,
	})
}

// Audiences returns the audience slice's use cases: the audiences group's
// handlers and the job runner call them.
func (s *Service) Audiences() *audience.App { return s.audiences }

// audienceJobs is the audience slice's Jobs port: the service's queue.
type audienceJobs struct{ s *Service }

func (q audienceJobs) Enqueue(ctx context.Context, j audience.Job) error {
	return q.s.enqueue(ctx, jobs.Job{Kind: j.Kind, OrgID: j.OrgID, Ref: j.Ref, Cursor: j.Cursor})
}

// contactLists is the audience slice's Lists port: the contact slice's
// use cases (Contacts), the list answered in the shape the audience's copy
// answers with.
type contactLists struct{ s *Service }

func (l contactLists) CreateContactList(ctx context.Context, orgID, userID, name, description string) (gifting.ContactList, error) {
	c, err := l.s.contacts.CreateList(ctx, orgID, userID, name, description)
	return gifting.ContactList{ListID: c.ListID, OrganizationID: c.OrganizationID, Name: c.Name, Description: c.Description,
		ContactCount: c.ContactCount, CreatedBy: c.CreatedBy, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}, err
}

func (l contactLists) AddContactIDsToList(ctx context.Context, orgID, listID string, ids []string) (contact.BulkResult, error) {
	return l.s.contacts.AddIDsToList(ctx, orgID, listID, ids)
}

func (l contactLists) DeleteContactList(ctx context.Context, orgID, listID string) error {
	return l.s.contacts.DeleteList(ctx, orgID, listID)
}

// RunAudienceJobs runs the jobs the audience routes start: a slice of a
// build, of a copy to a contact list, of a purge.
func (s *Service) RunAudienceJobs(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	var (
		more bool
		err  error
	)
	switch j.Kind {
	case audience.JobBuild:
		more, err = s.audiences.RunBuild(ctx, j.OrgID, j.Ref)
	case audience.JobCopy:
		more, err = s.audiences.RunCopy(ctx, j.OrgID, j.Ref, j.Cursor)
	case audience.JobPurge:
		more, err = s.audiences.Purge(ctx, j.OrgID, j.Ref)
	default:
		return nil, fmt.Errorf("%w: %q", errOtherJob, j.Kind)
	}
	if err != nil || !more {
		return nil, err
	}
	return &j, nil
}
