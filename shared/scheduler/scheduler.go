// Package scheduler runs timed work from one entry point, the tick: an
// EventBridge schedule invokes the worker function with it in AWS, a
// ticker runs it in the local server. A tick finds what is due through the
// table's due index (Store.DueItems, which shared/dynamo implements),
// never by reading a collection, and continues each due item's job from
// its stored cursor.
//
// This is what makes work that must happen after a commit (finishing a
// launch) independent of the message sent after it: the record written in
// the same transaction as the change is due until the work is done.
package scheduler

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/lambdafn"
)

// StuckAfter is how long a due item may go without progress before each
// failed attempt on it logs an ERROR carrying the field alert=<kind>_stuck
// (launch_stuck for a launch), which an alarm watches.
const StuckAfter = 30 * time.Minute

// stopMargin is the time left before the invocation's deadline at which a
// tick stops starting new slices: the lease then hands the item to a later
// tick.
const stopMargin = 20 * time.Second

// TickTimeout is how long one tick may run: the worker function's Timeout
// in template.yaml, which ends a tick in AWS. The local runner gives its
// ticks the same deadline (Run), so a tick there stops starting slices as
// one in AWS does, and never holds up the ticks after it for longer.
const TickTimeout = 150 * time.Second

// alerts are the alert field values of stuck items, by job kind.
var alerts = map[string]string{gifting.JobLaunch: "launch_stuck"}

// Store is what the tick needs of storage: the due index.
type Store interface {
	Now() time.Time
	// DueItems returns the items due at or before now.
	DueItems(ctx context.Context, now time.Time) ([]jobs.Due, error)
	// ClaimDue makes d due again at until, if it is still due as
	// DueItems saw it: of overlapping ticks only one gets it (true).
	ClaimDue(ctx context.Context, d jobs.Due, until time.Time) (bool, error)
}

// Scheduler runs ticks.
type Scheduler struct {
	store Store
	run   jobs.Handler
	log   *slog.Logger
}

// New returns a scheduler that continues due items over store with run,
// the same job handler the queue uses.
func New(store Store, run jobs.Handler, log *slog.Logger) *Scheduler {
	if log == nil {
		log = slog.Default()
	}
	return &Scheduler{store: store, run: run, log: log}
}

// Tick claims every item due now and works each (concurrently) until its
// job is done, fails, or the context's deadline is near. A failed item
// stays due and is tried again a lease later. Tick returns an error only
// when the due index cannot be read. The worker's schedule is its only
// caller in AWS.
func (s *Scheduler) Tick(ctx context.Context) error {
	ctx = lambdafn.With(ctx, lambdafn.Worker)
	now := s.store.Now()
	due, err := s.store.DueItems(ctx, now)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	for _, d := range due {
		claimed, err := s.store.ClaimDue(ctx, d, now.Add(jobs.DueLease))
		if err != nil {
			s.log.WarnContext(ctx, "claim due item", slog.String("kind", d.Kind), slog.String("organizationId", d.OrgID),
				slog.String("ref", d.Ref), slog.String("error", err.Error()))
			continue
		}
		if !claimed {
			continue // another tick has it, or its work moved on
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.work(ctx, d)
		}()
	}
	wg.Wait()
	return nil
}

// work continues d's job from its cursor, slice after slice, until it is
// done, fails, or nears the deadline.
func (s *Scheduler) work(ctx context.Context, d jobs.Due) {
	j := d.Job()
	for {
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < stopMargin {
			return
		}
		next, err := s.run(ctx, j)
		if err != nil {
			s.failed(ctx, d, j, err)
			return
		}
		if next == nil {
			return
		}
		j = *next
	}
}

// failed logs a failed slice of d: a warning, or an ERROR with the stable
// alert field once d made no progress for StuckAfter. Ids only: no
// personal data.
func (s *Scheduler) failed(ctx context.Context, d jobs.Due, j jobs.Job, err error) {
	attrs := []any{slog.String("kind", d.Kind), slog.String("organizationId", d.OrgID), slog.String("ref", d.Ref),
		slog.String("cursor", j.Cursor), slog.String("error", err.Error())}
	if d.Kind == gifting.JobLaunch {
		attrs = append(attrs, slog.String("campaignId", d.Ref))
	}
	idle := s.store.Now().Sub(d.ProgressAt)
	if d.ProgressAt.IsZero() || idle < StuckAfter {
		s.log.WarnContext(ctx, "due work failed; retried on a later tick", attrs...)
		return
	}
	alert, ok := alerts[d.Kind]
	if !ok {
		alert = "due_stuck"
	}
	attrs = append(attrs, slog.String("alert", alert), slog.Duration("sinceProgress", idle))
	s.log.ErrorContext(ctx, "due work stuck: no progress", attrs...)
}

// Run ticks every interval until ctx ends: the local server's scheduler.
// Each tick has TickTimeout, as a worker invocation in AWS has.
func (s *Scheduler) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			tctx, cancel := context.WithTimeout(ctx, TickTimeout)
			if err := s.Tick(tctx); err != nil {
				s.log.WarnContext(ctx, "scheduler tick", slog.String("error", err.Error()))
			}
			cancel()
		}
	}
}
