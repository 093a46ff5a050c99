package gifting

import "time"

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
	// EmailExpired is the failure recorded on the emails of an expired
	// recipient that had not gone out: they never will.
	EmailExpired = "expired"
)

// Unclaimed reports whether r still waits for its address: pending or
// invite_sent, with no claim. Only an unclaimed recipient expires.
func (r *Recipient) Unclaimed() bool {
	return !r.Claimed() && (r.Status == RecipientPending || r.Status == RecipientInviteSent)
}

// ExpiryDue reports whether r expires at now: unclaimed, with its
// ClaimExpiresAt reached.
func (r *Recipient) ExpiryDue(now time.Time) bool {
	return r.Unclaimed() && r.ClaimExpiresAt != nil && !r.ClaimExpiresAt.After(now)
}

// NextDue returns when r next has work for the scheduler: the earliest of
// its next email (NextEmail) and, while it is unclaimed, its expiry; ok is
// false when it has none.
func (r *Recipient) NextDue() (at time.Time, ok bool) {
	_, at, ok = r.NextEmail()
	if r.Unclaimed() && r.ClaimExpiresAt != nil && (!ok || r.ClaimExpiresAt.Before(at)) {
		at, ok = *r.ClaimExpiresAt, true
	}
	return at, ok
}

// Expire moves an unclaimed r to expired at now, stops its emails still to
// be sent (EmailExpired) and returns the credits to give back: all that r
// held, which it no longer costs. A recipient that is not unclaimed
// (claimed, or already expired) is a CONFLICT.
func (r *Recipient) Expire(now time.Time) (from RecipientStatus, refund int64, err error) {
	if !r.Unclaimed() {
		return "", 0, Errorf(CodeConflict, "recipient %q is %s, so it cannot expire", r.RecipientID, r.Status)
	}
	from, refund = r.Status, r.CreditsCharged
	r.StopEmails("", EmailExpired, now)
	r.Status, r.CreditsCharged = RecipientExpired, 0
	return from, refund, nil
}

// restartExpiry starts r's claim period again at now, when its invitation
// goes out: a recipient added to a draft (or while no email could go out)
// has as long to claim from its invitation as one invited at once.
func (r *Recipient) restartExpiry(now time.Time) {
	if r.ClaimExpiresAt == nil {
		return
	}
	at := now.Add(r.ClaimExpiresAt.Sub(r.CreatedAt))
	r.ClaimExpiresAt = &at
}
