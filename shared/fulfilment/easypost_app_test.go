package fulfilment_test

import (
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// A secret that EasyPost could never sign with is refused with a 400 that
// names the field, before anything is sealed or stored.
func TestCheckSecret(t *testing.T) {
	for _, tc := range []struct {
		name, secret string
		ok           bool
	}{
		{"generated", "whsec_8Q2nX0aPq7", true},
		{"with spaces and accents", "mon secret àé", true},
		{"the longest", strings.Repeat("ß", fulfilment.MaxSecretLength), true},
		{"empty", "", false},
		{"too long", strings.Repeat("a", fulfilment.MaxSecretLength+1), false},
		{"a pasted line break", "whsec_abc\n", false},
		{"a tab", "whsec\tabc", false},
		{"not UTF-8", "whsec_\xff", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fulfilment.CheckSecret(tc.secret)
			if tc.ok {
				if err != nil {
					t.Fatalf("CheckSecret refused a usable secret: %v", err)
				}
				return
			}
			var ge *gifting.Error
			if err == nil || !asError(err, &ge) || ge.Code != gifting.CodeValidation || ge.Details["webhookSecret"] == "" {
				t.Fatalf("CheckSecret(%q) = %v, want VALIDATION_FAILED naming webhookSecret", tc.secret, err)
			}
			if strings.Contains(ge.Error(), tc.secret) && tc.secret != "" {
				t.Fatalf("the error repeats the secret: %v", ge)
			}
		})
	}
}
