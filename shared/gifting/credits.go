package gifting

import (
	"fmt"
	"math"
)

// Bounds of every amount of money a tenant or an operator sets. They are
// far above any real gift or budget and far below where int64 arithmetic
// (or a JSON client's float64) loses exactness: a balance stays below 2^53,
// so every credit figure the API answers is exact in any JSON parser, and a
// recipient's price times any plausible number of contacts stays checkable.
const (
	// MaxGiftPrice is the highest price of a gift, in its currency.
	MaxGiftPrice = 1_000_000
	// MaxCreditsPerRecipient is the highest price of one recipient (a
	// campaign's creditsPerRecipient, derived or set).
	MaxCreditsPerRecipient = 1_000_000
	// MaxCreditsPerContact is the highest price of one audience member.
	MaxCreditsPerContact = 1_000_000
	// MaxTopUp is the largest single top-up of a wallet.
	MaxTopUp = 1_000_000_000
	// MaxBalance is the most a wallet can hold, and so the largest debit
	// or refund there can be.
	MaxBalance = 1_000_000_000_000_000
)

// CreditsForPrice returns the credits one gift of price costs: credits are
// whole, so the price, rounded to cents first (25.00 stored as 25.000000001
// is still 25), is rounded up. The range is checked before the float is
// converted, so no price can wrap around to a negative or huge number: a
// price that is not a number, negative or above MaxGiftPrice is a
// VALIDATION_FAILED naming "price".
func CreditsForPrice(price float64) (int64, error) {
	if math.IsNaN(price) || price < 0 || price > MaxGiftPrice {
		return 0, &Error{Code: CodeValidation, Message: fmt.Sprintf("a gift's price must be from 0 to %d", MaxGiftPrice),
			Details: map[string]string{"price": fmt.Sprintf("must be from 0 to %d", MaxGiftPrice)}}
	}
	return int64(math.Ceil(math.Round(price*100) / 100)), nil
}

// MulCredits returns n × price, the credits of n recipients (or contacts)
// at price each. Both must be zero or more, and the product at most
// MaxBalance; otherwise it is an INSUFFICIENT_CREDITS, since no wallet can
// hold that much. The check is made before multiplying, so it cannot wrap.
func MulCredits(n, price int64) (int64, error) {
	if n < 0 || price < 0 {
		return 0, fmt.Errorf("credits of %d × %d: negative operand", n, price)
	}
	if price != 0 && n > MaxBalance/price {
		return 0, Errorf(CodeInsufficientCredits,
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
