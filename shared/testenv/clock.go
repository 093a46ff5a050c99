package testenv

import (
	"sync"
	"time"
)

// Clock is the wall clock moved forward by an offset a test (or the
// benchmark) advances: to make a lease expire, an email due, a change
// old enough for the feed, without waiting. Safe for concurrent use.
type Clock struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the wall time plus the offset.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock d forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}
