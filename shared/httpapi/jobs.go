package httpapi

import (
	"context"
	"fmt"

	"github.com/giftcampaign/service/shared/jobs"
)

// RunJob runs one slice of a background job; the worker function (and the
// local queue) call it. Each group that has background work adds its kinds
// here.
func (s *Server) RunJob(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	switch j.Kind {
	case jobLaunch:
		return s.runLaunch(ctx, j)
	case jobAudienceBuild, jobAudienceContactList:
		return s.runAudienceJob(ctx, j)
	}
	return nil, fmt.Errorf("unknown job kind %q", j.Kind)
}

// enqueue hands j to the configured queue.
func (s *Server) enqueue(ctx context.Context, j jobs.Job) error {
	if s.cfg.Jobs == nil {
		return fmt.Errorf("no job queue configured for %s", j)
	}
	return s.cfg.Jobs.Enqueue(ctx, j)
}
