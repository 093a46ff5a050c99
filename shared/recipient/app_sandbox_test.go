package recipient

import (
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

func TestCheckAdvance(t *testing.T) {
	for _, tt := range []struct {
		from, to gifting.RecipientStatus
		code     gifting.Code
	}{
		{gifting.RecipientInviteSent, gifting.RecipientAddressConfirmed, ""},
		{gifting.RecipientPending, gifting.RecipientDelivered, ""},
		{gifting.RecipientProcessing, gifting.RecipientShipped, ""},
		{gifting.RecipientShipped, gifting.RecipientDelivered, ""},
		{gifting.RecipientProcessing, gifting.RecipientAddressConfirmed, gifting.CodeConflict},
		{gifting.RecipientDelivered, gifting.RecipientDelivered, gifting.CodeConflict},
		{gifting.RecipientInTransit, gifting.RecipientShipped, gifting.CodeConflict},
		{gifting.RecipientExpired, gifting.RecipientAddressConfirmed, gifting.CodeConflict},
		{gifting.RecipientDeclined, gifting.RecipientShipped, gifting.CodeConflict},
		{gifting.RecipientAcknowledged, gifting.RecipientDelivered, gifting.CodeConflict},
		{gifting.RecipientInviteSent, gifting.RecipientAcknowledged, gifting.CodeValidation},
		{gifting.RecipientInviteSent, "", gifting.CodeValidation},
	} {
		var got gifting.Code
		if err := CheckAdvance(tt.from, tt.to); err != nil {
			got = gifting.ErrorCode(err)
		}
		if got != tt.code {
			t.Errorf("CheckAdvance(%s, %s) = %q, want %q", tt.from, tt.to, got, tt.code)
		}
	}
}
