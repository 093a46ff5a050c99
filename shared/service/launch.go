package service

import (
	"context"
	"log/slog"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
)

// The campaign slice (shared/campaign) runs the campaigns' use cases:
// create, edit, the lifecycle, the launch's acceptance and its slices. The
// service builds its application layer over the store (New), hands it the
// job queue and the email code that sends a launch's invitations, and runs
// its jobs (RunCampaignJobs, RunJob).

// CampaignReader reads a campaign with the error a user sees for a missing
// one: for the use cases of the areas not yet moved into slices (emails,
// expiry), through storage's bridge.
type CampaignReader interface {
	Campaign(ctx context.Context, orgID, campaignID string) (campaign.Campaign, error)
}

// Campaigns is the campaign slice's application layer, over the service's
// store: the HTTP adapter calls it.
func (s *Service) Campaigns() *campaign.App { return s.campaigns }

// newCampaigns builds the campaign slice's application layer over s's
// store: with s's email code as its Inviter when a mailer is configured.
func (s *Service) newCampaigns() *campaign.App {
	cfg := campaign.Config{Queue: campaignJobs{s}, PublicBaseURL: s.cfg.PublicBaseURL, Logger: Logger}
	if s.cfg.Mailer != nil {
		cfg.Inviter = s
	}
	return campaign.NewApp(s.store, cfg)
}

// SendInvitation sends the invitation of a recipient a launch slice wrote
// with its invitation claimed, as add-recipient sends its own
// (sendInvitation): the campaign slice's Inviter.
func (s *Service) SendInvitation(ctx context.Context, orgID string, inv gifting.Invitation) bool {
	return s.sendInvitation(ctx, orgID, inv)
}

// campaignJobs is the campaign slice's Queue: the service's job queue.
type campaignJobs struct{ s *Service }

func (q campaignJobs) Enqueue(ctx context.Context, kind, orgID, ref string) error {
	return q.s.enqueue(ctx, jobs.Job{Kind: kind, OrgID: orgID, Ref: ref})
}

// runScheduledLaunch is the job of a draft whose scheduledAt has come
// (campaign.App.RunScheduledLaunch).
func (s *Service) runScheduledLaunch(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	return nil, s.campaigns.RunScheduledLaunch(ctx, j.OrgID, j.Ref)
}

// runLaunch does one slice of a launch job (campaign.App.LaunchSlice).
func (s *Service) runLaunch(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	ctx = WithLogger(ctx, s.log.With(slog.String("job", j.String())))
	next, done, err := s.campaigns.LaunchSlice(ctx, j.OrgID, j.Ref, j.Cursor)
	if err != nil || done {
		return nil, err
	}
	j.Cursor = next
	return &j, nil
}
