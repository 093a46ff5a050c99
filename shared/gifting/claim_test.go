package gifting_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestClaimInputAddressLines: an address line is one line of text as a
// shipping label prints it. Line breaks, NUL and bidirectional formatting
// characters (an override turns "12 Main St" into "tS niaM 21" on the label)
// are refused; letters of any script are not.
func TestClaimInputAddressLines(t *testing.T) {
	t.Parallel()
	gifts := []gifting.Gift{{GiftID: "gift-1"}}
	for _, tt := range []struct {
		name, line1 string
		ok          bool
	}{
		{"plain", "12 Main St", true},
		{"accents", "12 Rue de l'Église", true},
		{"right-to-left script", "רחוב הרצל 12", true},
		{"line break", "12 Main St\nApt 4", false},
		{"NUL", "12 Main St\x00", false},
		{"right-to-left override", "12 \u202eMain St", false},
		{"left-to-right embedding", "\u202a12 Main St", false},
		{"first strong isolate", "12 Main St\u2068", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := gifting.ClaimInput{ShippingAddress: gifting.ShippingAddress{
				Line1: tt.line1, City: "Springfield", Zip: "12345", Country: "US",
			}}
			err := in.Validate(gifts)
			if tt.ok {
				if err != nil {
					t.Fatalf("Validate(%q) = %v, want no error", tt.line1, err)
				}
				return
			}
			var e *gifting.Error
			if !asDomainError(err, &e) || e.Code != gifting.CodeValidation || e.Details["line1"] == "" {
				t.Fatalf("Validate(%q) = %v; want VALIDATION_FAILED naming line1", tt.line1, err)
			}
		})
	}
}

func asDomainError(err error, target **gifting.Error) bool {
	e, ok := err.(*gifting.Error)
	*target = e
	return ok
}
