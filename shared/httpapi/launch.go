package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/metrics"
)

// jobLaunch is the kind of the launch job: it writes a launched campaign's
// recipients in slices and then takes the campaign live.
const jobLaunch = gifting.JobLaunch

// launchAccepted is the message of an accepted launch.
const launchAccepted = "Campaign launch accepted; the campaign is preparing"

// launchCampaign accepts a launch: the credits are taken and the campaign
// is preparing when it answers 202; the job does the rest. The job's
// message only makes the launch start at once: the launch record, written
// with the debit, is due for the scheduler tick, which finishes the launch
// (or gives the credits back) when the message is lost. So a failed
// enqueue is logged, not answered: the launch is committed.
func (s *Server) launchCampaign(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p := principal(ctx)
	id := r.PathValue("campaignId")
	idem, err := idempotencyKey(r, "campaign-launch", id, nil)
	if err != nil {
		return err
	}
	l, stored, err := s.store.LaunchCampaignIdempotent(ctx, p.OrgID, id, p.UserID,
		idempotent(idem, http.StatusAccepted, launchAccepted, func(l gifting.Launch) any { return l }))
	if err != nil || stored != nil {
		return writeStored(w, stored, err)
	}
	if err := s.enqueue(ctx, jobs.Job{Kind: jobLaunch, OrgID: p.OrgID, Ref: id}); err != nil {
		loggerFrom(ctx).WarnContext(ctx, "launch job not enqueued; the scheduler will run the launch",
			slog.String("organizationId", p.OrgID), slog.String("campaignId", id), slog.String("error", err.Error()))
	}
	metrics.Count(p.OrgID, map[string]int64{metrics.LaunchesAccepted: 1, metrics.CreditsSpent: l.CreditsDeducted})
	writeEnvelope(w, http.StatusAccepted, launchAccepted, l)
	return nil
}

// runLaunch does one slice of a launch job.
func (s *Server) runLaunch(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	ctx = context.WithValue(ctx, ctxLogger, s.log.With(slog.String("job", j.String())))
	next, done, err := s.store.LaunchSlice(ctx, j.OrgID, j.Ref, j.Cursor, s.cfg.PublicBaseURL, s.launchInviter(j.OrgID))
	if err != nil || done {
		return nil, err
	}
	j.Cursor = next
	return &j, nil
}

// launchInviter sends the invitations of the recipients a launch slice
// writes, as add-recipient does (sendInvitation), or is nil when no mailer
// is configured: the recipients then stay pending, invitation scheduled.
// Sends are sequential: the undo of a failed one moves the campaign's
// counters, which concurrent undos would fight over.
func (s *Server) launchInviter(orgID string) gifting.Inviter {
	if s.cfg.Mailer == nil {
		return nil
	}
	return func(ctx context.Context, invs []gifting.Invitation) {
		for _, inv := range invs {
			s.sendInvitation(ctx, orgID, inv, func(ctx context.Context) error {
				return s.store.UninviteRecipient(ctx, orgID, inv)
			})
		}
	}
}
