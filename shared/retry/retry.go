// Package retry is the pause between the attempts of a use case that
// decides again after storage reported that the state it decided from
// moved (another change committed first) or that the write was contended.
// The slices' application layers own their retry loops (how many
// attempts, on which outcomes); this is only the wait.
package retry

import (
	"context"
	"math/rand/v2"
	"time"
)

// MaxAttempts bounds the attempts of a change whose commits keep finding
// the state moved: far more than any real contention needs, few enough
// that a bug cannot spin for long.
const MaxAttempts = 60

// Pause waits before attempt n+1 (not at all for n < 1): full jitter over
// an exponential cap of 5 ms · 2^n, at most 400 ms, so concurrent writers
// spread out rather than collide again. It returns ctx's error when ctx
// ends first.
func Pause(ctx context.Context, n int) error {
	if n < 1 {
		return nil
	}
	capped := min(5*time.Millisecond<<min(n, 10), 400*time.Millisecond)
	t := time.NewTimer(time.Duration(rand.Int64N(int64(capped)) + 1))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
