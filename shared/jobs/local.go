package jobs

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/giftcampaign/service/shared/lambdafn"
)

// Local runs jobs in goroutines of this process: the local server's and the
// tests' queue. A job and its continuations run one after another; a
// failing slice is retried a few times, then logged and dropped.
type Local struct {
	log *slog.Logger

	mu      sync.Mutex
	handler Handler
	pending []Job
	wg      sync.WaitGroup
}

var _ Queue = (*Local)(nil)

// NewLocal returns a queue that holds jobs until Start.
func NewLocal(log *slog.Logger) *Local {
	if log == nil {
		log = slog.Default()
	}
	return &Local{log: log}
}

// Start runs queued and future jobs with h.
func (q *Local) Start(h Handler) {
	q.mu.Lock()
	q.handler = h
	pending := q.pending
	q.pending = nil
	q.mu.Unlock()
	for _, j := range pending {
		q.spawn(j)
	}
}

// Enqueue schedules j. The request's ctx is not used by the job, which
// outlives the request.
func (q *Local) Enqueue(_ context.Context, j Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.handler == nil {
		q.pending = append(q.pending, j)
		return nil
	}
	q.spawn(j)
	return nil
}

func (q *Local) spawn(j Job) {
	q.wg.Add(1)
	go func() {
		defer q.wg.Done()
		q.run(j)
	}()
}

// run executes j and its continuations. In AWS the worker runs every job,
// whichever function enqueued it.
func (q *Local) run(j Job) {
	ctx := lambdafn.With(context.Background(), lambdafn.Worker)
	for {
		var (
			next *Job
			err  error
		)
		for attempt := 1; attempt <= 3; attempt++ {
			next, err = q.handler(ctx, j)
			if err == nil {
				break
			}
			q.log.Warn("job slice failed", slog.String("job", j.String()), slog.Int("attempt", attempt), slog.String("error", err.Error()))
			time.Sleep(time.Duration(attempt) * 50 * time.Millisecond)
		}
		if err != nil {
			q.log.Error("job dropped", slog.String("job", j.String()), slog.String("error", err.Error()))
			return
		}
		if next == nil {
			return
		}
		j = *next
	}
}

// Wait blocks until every started job and its continuations are done.
func (q *Local) Wait() { q.wg.Wait() }
