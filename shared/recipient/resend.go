package recipient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// The sender's controls over one recipient: send the invitation again,
// and give the recipient more time to claim.

// Bounds of resends: at most MaxResends per recipient, each at least
// ResendInterval after the invitation or the resend before it.
const (
	MaxResends     = 3
	ResendInterval = time.Hour
)

// ResendLimited is the RATE_LIMITED of a resend the bounds refuse.
// RetryAfter is how long until one is allowed, zero when none will ever
// be (MaxResends used).
type ResendLimited struct {
	RetryAfter time.Duration
	err        *gifting.Error
}

func (e *ResendLimited) Error() string { return e.err.Error() }

// Unwrap gives the RATE_LIMITED error, for gifting.ErrorCode.
func (e *ResendLimited) Unwrap() error { return e.err }

// errNotInvited is the CONFLICT of a resend to a recipient that is not
// invited and unclaimed.
func errNotInvited(r Recipient) error {
	return gifting.Errorf(gifting.CodeConflict,
		"recipient %q is %s; only an invited recipient who has not claimed its gift (invite_sent) can be sent the invitation again", r.RecipientID, r.Status)
}

// DecideResend plans taking one of cur's resends at now, before the
// invitation goes out again: only an invited, unclaimed recipient of a
// campaign that sends invitations now (CONFLICT otherwise), at most
// MaxResends times and ResendInterval after the last sending
// (ResendLimited). The write is the resend's claim: conditioned on the
// version read, two resends at once send one invitation.
func DecideResend(orgID string, cur Stored, c Campaign, now time.Time) (Update, error) {
	r := cur.Recipient
	e := r.Emails.AddressConfirmation
	switch {
	case r.Status != gifting.RecipientInviteSent || r.Claimed() || !e.Sent:
		return Update{}, errNotInvited(r)
	case c.Deleted || !c.Sends("addressConfirmation"):
		return Update{}, gifting.Errorf(gifting.CodeConflict, "campaign %q sends no invitations now (it is %s)", c.CampaignID, c.Status)
	case r.Resends >= MaxResends:
		return Update{}, &ResendLimited{err: gifting.Errorf(gifting.CodeRateLimited,
			"the invitation of recipient %q was already sent again %d times, the most there may be", r.RecipientID, MaxResends)}
	}
	last := e.SentAt
	if r.ResentAt != nil && (last == nil || r.ResentAt.After(*last)) {
		last = r.ResentAt
	}
	if last != nil && now.Before(last.Add(ResendInterval)) {
		wait := last.Add(ResendInterval).Sub(now)
		return Update{}, &ResendLimited{RetryAfter: wait, err: gifting.Errorf(gifting.CodeRateLimited,
			"the invitation of recipient %q may be sent again once an hour; retry after %d seconds", r.RecipientID, int64(wait.Seconds()+0.999))}
	}
	at := now
	r.Resends, r.ResentAt, r.UpdatedAt = r.Resends+1, &at, now
	return updateOf(orgID, cur, r), nil
}

// Resend sends a recipient's invitation again (DecideResend), as it was
// rendered for it, and records the message for its bounces. When the send
// fails the resend is given back, and the error is CONFLICT for a
// suppressed or rejected address, SERVICE_UNAVAILABLE otherwise.
//
// Errors: NOT_FOUND (recipient or campaign), CONFLICT, RATE_LIMITED
// (*ResendLimited).
func (a *App) Resend(ctx context.Context, orgID, campaignID, recipientID string) (Recipient, error) {
	if a.cfg.Mailer == nil {
		return Recipient{}, gifting.Errorf(gifting.CodeConflict, "no mail provider is configured, so no invitation can be sent")
	}
	c, err := a.store.RecipientCampaign(ctx, orgID, campaignID)
	if errors.Is(err, ErrNoCampaign) {
		return Recipient{}, gifting.NotFound("campaign", campaignID)
	}
	if err != nil {
		return Recipient{}, err
	}
	r, err := a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
		return DecideResend(orgID, cur, c, a.store.Now())
	})
	if err != nil {
		return Recipient{}, err
	}
	const kind = "addressConfirmation"
	id, failure, err := a.deliver(context.WithoutCancel(ctx), orgID, r, kind)
	if err != nil {
		if _, uerr := a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
			return DecideResendFailed(orgID, cur, *r.ResentAt)
		}); uerr != nil {
			err = errors.Join(err, uerr)
		}
		if failure != "" {
			return Recipient{}, gifting.Errorf(gifting.CodeConflict, "the invitation was not sent again: %s", failure)
		}
		return Recipient{}, gifting.Unavailable(fmt.Errorf("resend invitation: %w", err))
	}
	return a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
		u := updateOf(orgID, cur, cur.Recipient)
		u.Sent = &SentMessage{MessageID: id, Kind: kind}
		return u, nil
	})
}

// DecideResendFailed gives back the resend taken at at, when it is still
// the last: the invitation did not go out again.
func DecideResendFailed(orgID string, cur Stored, at time.Time) (Update, error) {
	r := cur.Recipient
	if r.ResentAt == nil || !r.ResentAt.Equal(at) || r.Resends == 0 {
		return Update{}, errNothingToWrite
	}
	r.Resends--
	if r.Resends == 0 {
		r.ResentAt = nil
	}
	return updateOf(orgID, cur, r), nil
}

// ExtendExpiry moves an unclaimed recipient's claim expiry to at
// (DecideExtendExpiry).
//
// Errors: NOT_FOUND, CONFLICT (claimed, expired, declined), VALIDATION_FAILED
// naming claimExpiresAt.
func (a *App) ExtendExpiry(ctx context.Context, orgID, campaignID, recipientID string, at time.Time) (Recipient, error) {
	return a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
		return DecideExtendExpiry(orgID, cur, at, a.store.Now())
	})
}

// DecideExtendExpiry plans giving cur until at to claim: only while it is
// unclaimed (pending or invite_sent: CONFLICT otherwise), and at must be
// after now and after its current expiry, and at most
// gifting.MaxClaimExpiresInDays (a campaign's longest claim period) after
// its invitation went out, or after it was added while not invited yet
// (VALIDATION_FAILED naming claimExpiresAt). The recipient's due time
// follows its new expiry.
func DecideExtendExpiry(orgID string, cur Stored, at, now time.Time) (Update, error) {
	r := cur.Recipient
	if !r.Unclaimed() {
		return Update{}, gifting.Errorf(gifting.CodeConflict, "recipient %q is %s; only an unclaimed recipient (pending or invite_sent) can be given more time", r.RecipientID, r.Status)
	}
	start := r.CreatedAt
	if s := r.Emails.AddressConfirmation.SentAt; s != nil {
		start = *s
	}
	limit := start.AddDate(0, 0, gifting.MaxClaimExpiresInDays)
	var p gifting.Problems
	switch {
	case !at.After(now):
		p.Add("claimExpiresAt", "must be in the future")
	case r.ClaimExpiresAt != nil && !at.After(*r.ClaimExpiresAt):
		p.Add("claimExpiresAt", "must be later than the current claimExpiresAt, "+gifting.FormatTime(*r.ClaimExpiresAt))
	case at.After(limit):
		p.Add("claimExpiresAt", fmt.Sprintf("must be at most %d days after the invitation went out: %s at the latest",
			gifting.MaxClaimExpiresInDays, gifting.FormatTime(limit)))
	}
	if err := p.Err(); err != nil {
		return Update{}, err
	}
	t := at.UTC()
	r.ClaimExpiresAt, r.UpdatedAt = &t, now
	return updateOf(orgID, cur, r), nil
}
