package recipient

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Claim expiry: a recipient who has not confirmed an address its
// campaign's claimExpiresInDays after it was added (or invited) moves to
// expired, and the credits held for it go back to the wallet. A completed
// or deleted campaign expires all its unclaimed recipients at once.

// Unclaimed reports whether r still waits for its address: pending or
// invite_sent, with no claim. Only an unclaimed recipient expires.
func (r *Recipient) Unclaimed() bool {
	return !r.Claimed() && (r.Status == gifting.RecipientPending || r.Status == gifting.RecipientInviteSent)
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
func (r *Recipient) Expire(now time.Time) (from gifting.RecipientStatus, refund int64, err error) {
	if !r.Unclaimed() {
		return "", 0, gifting.Errorf(gifting.CodeConflict, "recipient %q is %s, so it cannot expire", r.RecipientID, r.Status)
	}
	from, refund = r.Status, r.CreditsCharged
	r.StopEmails("", EmailExpired, now)
	r.Status, r.CreditsCharged = gifting.RecipientExpired, 0
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

// ExpiryPlan is a decided expiry, ready to commit in one transaction.
type ExpiryPlan struct {
	OrgID string
	// Before is the version the recipient was read at; Recipient is it as
	// expired, From the status it left.
	Before    int64
	Recipient Stored
	From      gifting.RecipientStatus
	// Refund is what the recipient held, which goes back to the wallet,
	// with Reason in its ledger entry; Wallet is its plan, decided when
	// Refund is above zero.
	Refund int64
	Reason string
	Wallet *wallet.Plan
	// Archived says the campaign was deleted: its counters live on its
	// archived copy.
	Archived bool
	Message  gifting.Change
	// More are messages written beside Message (a decline's
	// recipient.declined).
	More []gifting.Change
}

// DecideExpiry plans the expiry of cur, a recipient of orgID, at now: with
// onlyDue only once its claim period is over (the scheduler), without any
// unclaimed one (its campaign was completed or deleted), its refund saying
// which. ok is false when there is nothing to do: claimed, already
// expired, or not due yet.
func DecideExpiry(orgID string, cur Stored, onlyDue bool, now time.Time) (p ExpiryPlan, ok bool, err error) {
	r := cur.Recipient
	if !r.Unclaimed() || (onlyDue && !r.ExpiryDue(now)) {
		return ExpiryPlan{}, false, nil
	}
	from, refund, err := r.Expire(now)
	if err != nil {
		return ExpiryPlan{}, false, err
	}
	reason := "the recipient did not claim its gift in time"
	if !onlyDue {
		reason = "the campaign ended before the recipient claimed its gift"
	}
	return ExpiryPlan{OrgID: orgID, Before: cur.Version, Recipient: cur.Next(r), From: from, Refund: refund, Reason: reason,
		Message: statusChanged(r, from)}, true, nil
}

// RefundChange is the wallet change of p's refund.
func (p ExpiryPlan) RefundChange() wallet.Change {
	return wallet.Change{OrgID: p.OrgID, Type: wallet.Refund, Delta: p.Refund, CampaignID: p.Recipient.CampaignID,
		RecipientID: p.Recipient.RecipientID, Reason: p.Reason}
}
