package wallet

import (
	"fmt"

	"github.com/giftcampaign/service/shared/gifting"
)

// MulCredits returns n × price, the credits of n recipients (or contacts)
// at price each. Both must be zero or more, and the product at most
// MaxBalance; otherwise it is an INSUFFICIENT_CREDITS, since no wallet can
// hold that much. The check is made before multiplying, so it cannot wrap.
func MulCredits(n, price int64) (int64, error) {
	if n < 0 || price < 0 {
		return 0, fmt.Errorf("credits of %d × %d: negative operand", n, price)
	}
	if price != 0 && n > MaxBalance/price {
		return 0, gifting.Errorf(gifting.CodeInsufficientCredits,
			"%d × %d credits is more than a wallet can hold (at most %d)", n, price, int64(MaxBalance))
	}
	return n * price, nil
}

// AddCredits returns a + b when both and the sum lie in [-MaxBalance,
// MaxBalance], and false otherwise (without wrapping around).
func AddCredits(a, b int64) (int64, bool) {
	if a < -MaxBalance || a > MaxBalance || b < -MaxBalance || b > MaxBalance {
		return 0, false
	}
	sum := a + b // cannot overflow: both are within ±MaxBalance
	if sum < -MaxBalance || sum > MaxBalance {
		return 0, false
	}
	return sum, true
}
