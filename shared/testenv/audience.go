package testenv

import (
	"context"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
)

// Audiences returns the audience slice's use cases over s, wired as the
// service wires them, with a job queue that keeps nothing: a test runs
// the slices of the builds and copies it starts itself (BuildSlice,
// CopySlice), or leaves them to the scheduler's tick, as after a process
// that died before its job's message went out.
func Audiences(s *dynamo.Store) *audience.App {
	return service.New(s, service.Config{Logger: Quiet, Jobs: lostJobs{}}).Audiences()
}

// lostJobs is a queue whose messages are lost.
type lostJobs struct{}

func (lostJobs) Enqueue(context.Context, jobs.Job) error { return nil }
