package recipient

import "time"

// ClaimDelay is how long r took from its invitation (the addressConfirmation
// email's sending; its creation when that is not recorded) to its claim; 0
// before a claim.
func (r Recipient) ClaimDelay() time.Duration {
	if r.ClaimedAt == nil {
		return 0
	}
	from := r.CreatedAt
	if at := r.Emails.AddressConfirmation.SentAt; at != nil {
		from = *at
	}
	return r.ClaimedAt.Sub(from)
}
