package gifting

import (
	"testing"
	"time"
)

// TestClaimDelayBuckets: a delay's bucket middle is within 19% of the
// delay (above a minute), buckets grow with the delay, and the median of
// a histogram is the middle of the bucket holding its middle count.
func TestClaimDelayBuckets(t *testing.T) {
	prev := -1
	for _, d := range []time.Duration{0, 30 * time.Second, 5 * time.Minute, time.Hour, 26 * time.Hour, 9 * 24 * time.Hour, 200 * 24 * time.Hour} {
		b := ClaimDelayBucket(d)
		if b < prev {
			t.Errorf("%v is in bucket %d, before the shorter delay's %d", d, b, prev)
		}
		prev = b
		if d >= 2*time.Minute {
			if mid := ClaimDelayMid(b); mid < time.Duration(0.81*float64(d)) || mid > time.Duration(1.19*float64(d)) {
				t.Errorf("%v: bucket %d's middle %v is more than 19%% off", d, b, mid)
			}
		}
	}
	if ClaimDelayBucket(-time.Hour) != 0 {
		t.Errorf("a negative delay is not in bucket 0")
	}
	h := map[int]int64{ClaimDelayBucket(time.Hour): 2, ClaimDelayBucket(3 * 24 * time.Hour): 4, ClaimDelayBucket(9 * time.Minute): 1}
	if m, ok := MedianClaimDelay(h); !ok || m < 48*time.Hour || m > 96*time.Hour {
		t.Errorf("median of 9 min, 1 h, 1 h, 3 d, 3 d, 3 d, 3 d = %v (%v); want about 3 days", m, ok)
	}
	if _, ok := MedianClaimDelay(map[int]int64{}); ok {
		t.Errorf("an empty histogram has a median")
	}
}
