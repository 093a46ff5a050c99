package gifting

import (
	"math"
	"time"
)

// A campaign keeps, beside its counters, a histogram of how long its
// recipients took from their invitation to their claim: the claim's own
// transaction adds one to its bucket, so a report reads a median from a
// few numbers instead of every recipient. Buckets are half-doublings of
// minutes (bucket b holds delays from 2^(b/2)-1 to 2^((b+1)/2)-1
// minutes), so a median read from them is within ±19% of the exact one.

// MaxClaimDelayBucket is the last bucket: delays of ~2^31 minutes and more
// (never, in practice: claims expire within a year).
const MaxClaimDelayBucket = 63

// ClaimDelayBucket is the bucket of a delay (negative delays count as 0).
func ClaimDelayBucket(d time.Duration) int {
	m := max(d.Minutes(), 0)
	return min(int(math.Floor(2*math.Log2(m+1))), MaxClaimDelayBucket)
}

// ClaimDelayMid is the middle of bucket b (the geometric mean of its
// bounds, in minutes + 1): what a median falling in it is reported as.
func ClaimDelayMid(b int) time.Duration {
	minutes := math.Pow(2, (float64(b)+0.5)/2) - 1
	return time.Duration(minutes * float64(time.Minute))
}

// MedianClaimDelay is the median delay of a histogram (bucket → count),
// false when it counts nothing.
func MedianClaimDelay(h map[int]int64) (time.Duration, bool) {
	var n int64
	for _, c := range h {
		n += c
	}
	if n <= 0 {
		return 0, false
	}
	var seen int64
	for b := 0; b <= MaxClaimDelayBucket; b++ {
		if seen += h[b]; 2*seen >= n {
			return ClaimDelayMid(b), true
		}
	}
	return ClaimDelayMid(MaxClaimDelayBucket), true
}
