package httpapi

import (
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/metrics"
)

// countAdded records a recipient added by add-recipient and the credits it
// took; a replayed request did nothing and counts nothing.
func countAdded(orgID string, res gifting.AddRecipientResult) {
	if res.Replayed {
		return
	}
	metrics.Count(orgID, map[string]int64{
		metrics.RecipientsAdded: 1,
		metrics.CreditsSpent:    res.Recipient.CreditsCharged,
	})
}

// countRefused records an add-recipient the wallet could not pay (402).
func countRefused(orgID string, err error) {
	if gifting.ErrorCode(err) == gifting.CodeInsufficientCredits {
		metrics.Count(orgID, map[string]int64{metrics.InsufficientCredits: 1})
	}
}
