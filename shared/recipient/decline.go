package recipient

import (
	"context"
	"errors"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/retry"
	"github.com/giftcampaign/service/shared/wallet"
)

// "No thanks": a recipient who does not want its gift says so on its
// landing page before claiming. It moves to declined (off the journey,
// like expired), the credits held for it go back to the wallet with a
// refund ledger entry, its emails still to be sent stop, and a
// recipient.declined message goes out beside its status change. The
// decline is written as an expiry is (ClaimStore.CommitExpiry: one
// transaction conditioned on the version read), so of a decline and a
// claim racing exactly one wins.

// ErrDeclined is the CONFLICT of a claim of a recipient who declined.
var ErrDeclined = gifting.Errorf(gifting.CodeConflict, "you said no thanks to this gift, so it can no longer be claimed")

// declineReason is the ledger entry's reason of a decline's refund.
const declineReason = "the recipient declined the gift"

// Decline moves an unclaimed r to declined at now, stops its emails still
// to be sent (EmailDeclined) and returns the credits to give back: all
// that r held. A claimed recipient is a CONFLICT (ErrAlreadyClaimed), an
// expired one GONE (ErrGiftExpired).
func (r *Recipient) Decline(now time.Time) (from gifting.RecipientStatus, refund int64, err error) {
	switch {
	case r.Status == gifting.RecipientExpired:
		return "", 0, ErrGiftExpired
	case r.Status == gifting.RecipientDeclined:
		return "", 0, ErrDeclined
	case !r.Unclaimed():
		return "", 0, ErrAlreadyClaimed
	}
	from, refund = r.Status, r.CreditsCharged
	r.StopEmails("", EmailDeclined, now)
	r.Status, r.CreditsCharged = gifting.RecipientDeclined, 0
	return from, refund, nil
}

// DecideDecline plans the decline of cur, a recipient of orgID, at now
// (Recipient.Decline). ok is false when it already declined: a second
// "No thanks" (a double click, a reload) changes nothing.
func DecideDecline(orgID string, cur Stored, now time.Time) (p ExpiryPlan, ok bool, err error) {
	r := cur.Recipient
	if r.Status == gifting.RecipientDeclined {
		return ExpiryPlan{}, false, nil
	}
	from, refund, err := r.Decline(now)
	if err != nil {
		return ExpiryPlan{}, false, err
	}
	return ExpiryPlan{OrgID: orgID, Before: cur.Version, Recipient: cur.Next(r), From: from, Refund: refund,
		Reason: declineReason, Message: statusChanged(r, from),
		More: []gifting.Change{gifting.NewChange(gifting.ChangeRecipientDeclined, r)}}, true, nil
}

// Decline records that the recipient declined its gift (DecideDecline) in
// one transaction with its refund. declined is false when it had already
// declined.
//
// Errors: NOT_FOUND (recipient), GONE (expired; the campaign deleted),
// CONFLICT (claimed).
func (a *App) Decline(ctx context.Context, orgID, campaignID, recipientID string) (declined bool, err error) {
	for attempt := 1; ; attempt++ {
		cur, err := a.load(ctx, orgID, campaignID, recipientID)
		if err != nil {
			return false, err
		}
		p, ok, err := DecideDecline(orgID, cur, a.store.Now())
		if err != nil || !ok {
			return false, err
		}
		if p.Refund > 0 {
			_, err = wallet.Apply(ctx, a.store, p.RefundChange(), func(ctx context.Context, w wallet.Plan) error {
				p.Wallet = &w
				return a.store.CommitExpiry(ctx, p)
			})
		} else {
			err = a.store.CommitExpiry(ctx, p)
		}
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, ErrRecipientChanged) && attempt < retry.MaxAttempts:
			continue // the recipient changed since read (a claim, an email): read again
		case errors.Is(err, ErrCampaignMissing):
			return false, ErrCampaignGone
		}
		return false, err
	}
}

// Decline records "No thanks" from the landing page pageID names, before a
// claim. Saying it again changes nothing and is no error.
//
// Errors: NOT_FOUND, GONE (the campaign is over; the recipient expired),
// CONFLICT (already claimed).
func (s *Pages) Decline(ctx context.Context, pageID string) (Page, error) {
	p, err := s.page(ctx, pageID, gifting.LandingPage)
	if err != nil {
		return p, err
	}
	r := p.Recipient
	if r.Status == gifting.RecipientDeclined {
		return p, nil
	}
	if r.Status == gifting.RecipientExpired {
		return p, ErrGiftExpired
	}
	_, err = s.app.Decline(ctx, r.OrganizationID, r.CampaignID, r.RecipientID)
	switch {
	case errors.Is(err, ErrGiftExpired):
		p.Recipient.Status = gifting.RecipientExpired // expired since the read
	case errors.Is(err, ErrAlreadyClaimed):
		now := s.app.store.Now()
		p.Recipient.ClaimedAt = &now // claimed since the read: the answer leads to the landing page
	}
	return p, err
}
