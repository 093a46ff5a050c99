package dynamo

import (
	"context"
	"math/rand/v2"
	"time"
)

// maxAttempts bounds the retries of a transaction that keeps conflicting.
const maxAttempts = 60

// backoff is the wait before attempt n (n ≥ 1): full jitter over an
// exponential cap of 5 ms · 2^n, at most 400 ms.
func backoff(n int) time.Duration {
	capped := min(5*time.Millisecond<<min(n, 10), 400*time.Millisecond)
	return time.Duration(rand.Int64N(int64(capped)) + 1)
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
