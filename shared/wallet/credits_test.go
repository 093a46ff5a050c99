package wallet_test

import (
	"math"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

func TestMulCredits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		n, price int64
		want     int64
		code     gifting.Code // "" = no error
	}{
		{"zero contacts", 0, 55, 0, ""},
		{"free", 1000, 0, 0, ""},
		{"ordinary", 1000, 55, 55_000, ""},
		{"exactly the most a wallet holds", wallet.MaxBalance / 1_000_000, 1_000_000, wallet.MaxBalance, ""},
		{"one over the most a wallet holds", wallet.MaxBalance/1_000_000 + 1, 1_000_000, 0, gifting.CodeInsufficientCredits},
		{"issue 11: wraps int64", 2, 4_700_000_000_000_000_000, 0, gifting.CodeInsufficientCredits},
		{"largest operands", math.MaxInt64, math.MaxInt64, 0, gifting.CodeInsufficientCredits},
		{"negative price", 2, -5, 0, gifting.CodeInternal},
		{"negative count", -2, 5, 0, gifting.CodeInternal},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := wallet.MulCredits(tt.n, tt.price)
			if tt.code != "" {
				if err == nil || gifting.ErrorCode(err) != tt.code {
					t.Errorf("MulCredits = %d, %v; want %s", got, err, tt.code)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("MulCredits = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestAddCredits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		a, b int64
		want int64
		ok   bool
	}{
		{"ordinary", 1000, -55, 945, true},
		{"up to the most", wallet.MaxBalance - 1, 1, wallet.MaxBalance, true},
		{"above the most", wallet.MaxBalance, 1, 0, false},
		{"below minus the most", -wallet.MaxBalance, -1, 0, false},
		{"an operand out of range", math.MaxInt64, math.MinInt64, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := wallet.AddCredits(tt.a, tt.b); ok != tt.ok || got != tt.want {
				t.Errorf("AddCredits = %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
