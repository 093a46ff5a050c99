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
