package gifting

// Claim expiry: a recipient who has not confirmed an address
// ClaimExpiresInDays after it was added moves to expired, and the credits
// held for it go back to the wallet.
const (
	// DefaultClaimExpiresInDays is a campaign's claimExpiresInDays when it
	// sets none.
	DefaultClaimExpiresInDays = 30
	// MaxClaimExpiresInDays bounds claimExpiresInDays (from 1).
	MaxClaimExpiresInDays = 365
	// JobCampaignExpire is the job kind that expires every unclaimed
	// recipient of a completed campaign, in slices; its reference is the
	// campaign id.
	JobCampaignExpire = "campaign.expire"
)

// ClaimExpiry is how many days c's recipients have to claim their gift:
// its claimExpiresInDays, DefaultClaimExpiresInDays when unset.
func (c Campaign) ClaimExpiry() int {
	if d := c.CampaignData.ClaimExpiresInDays; d > 0 {
		return d
	}
	return DefaultClaimExpiresInDays
}
