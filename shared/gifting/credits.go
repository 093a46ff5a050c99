package gifting

import (
	"fmt"
	"math"
)

// Bounds of every price a tenant sets. They are far above any real gift and
// far below where int64 arithmetic loses exactness, so a recipient's price
// times any plausible number of contacts stays checkable
// (wallet.MulCredits). The wallet's own bounds are shared/wallet's.
const (
	// MaxGiftPrice is the highest price of a gift, in its currency.
	MaxGiftPrice = 1_000_000
	// MaxCreditsPerRecipient is the highest price of one recipient (a
	// campaign's creditsPerRecipient, derived or set).
	MaxCreditsPerRecipient = 1_000_000
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
