package recipient

import (
	"context"
	"errors"
	"fmt"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/metrics"
	"github.com/giftcampaign/service/shared/retry"
	"github.com/giftcampaign/service/shared/wallet"
)

// Claim records a recipient's claim, all or nothing, in one transaction
// (ClaimStore.CommitClaim): the recipient moves to address_confirmed with
// its address and chosen gift, one unit of the gift is reserved, the
// campaign's counters move and the contact gains the address. When the gift
// costs less than the credits held for the recipient, the difference goes
// back to the wallet with a refund ledger entry, in the same transaction.
// It reads first with one BatchGetItem (recipient, campaign, gift), then
// the contact, and reads again when the recipient or the contact changed
// before the commit. It returns the recipient as claimed.
//
// Errors: NOT_FOUND (recipient), GONE (campaign completed or deleted; the
// recipient expired), CONFLICT (already claimed; the gift out of stock,
// with details giftId), VALIDATION_FAILED (the gift is not one of the
// campaign's).
func (a *App) Claim(ctx context.Context, orgID, campaignID, recipientID string, in ClaimInput) (Recipient, error) {
	for attempt := 1; ; attempt++ {
		r, err := a.claimOnce(ctx, orgID, campaignID, recipientID, in)
		// The recipient changed, or the gift's counts left the range the
		// reservation was decided for: read again and decide again.
		changed := errors.Is(err, ErrRecipientChanged) || errors.Is(err, fulfilment.ErrStockMoved)
		if changed && attempt < retry.MaxAttempts {
			continue
		}
		if changed {
			return Recipient{}, fmt.Errorf("claim gave up after %d attempts: %w", attempt, err)
		}
		return r, err
	}
}

// claimOnce reads what a claim needs, decides and commits once.
func (a *App) claimOnce(ctx context.Context, orgID, campaignID, recipientID string, in ClaimInput) (Recipient, error) {
	st, err := a.store.LoadClaim(ctx, orgID, campaignID, recipientID, in.GiftID)
	if err != nil {
		return Recipient{}, err
	}
	if st.Replay(in) {
		return st.Recipient.Recipient, nil
	}
	if err := st.Check(recipientID, in); err != nil {
		return Recipient{}, err
	}
	if st.Gift.Gift.Digital() {
		return a.claimDigital(ctx, orgID, st, in.GiftID)
	}
	if st.Contact, err = a.store.LiveContact(ctx, orgID, st.Recipient.ContactDetails.ContactID); err != nil {
		return Recipient{}, err
	}
	st.OrderID = a.store.NewID()
	p, err := DecideClaim(orgID, st, in, a.store.Now())
	if err != nil {
		return Recipient{}, err
	}
	switch err := a.commitClaim(ctx, p); {
	case errors.Is(err, ErrOutOfStock), errors.Is(err, fulfilment.ErrOutOfStock):
		return Recipient{}, fulfilment.OutOfStock(in.GiftID, p.Order.Order.VariantID)
	case err != nil:
		return Recipient{}, err
	}
	return p.Recipient.Recipient, nil
}

// maxCodeTries bounds the codes one claim of a digital gift tries: each
// try moves past a code another claim took first, so only a pool being
// emptied by that many claims at once reaches it.
const maxCodeTries = 200

// claimDigital claims st's digital gift giftID: it takes the gift's first
// code that can be handed out (the one that expires first, not before a
// second from now), and when another claim assigned that code first (the
// transaction's condition on it failed: ErrCodeTaken) the next one, until
// one is assigned or none is left (CodesGone). Each code is assigned in
// the claim's own transaction, on the condition that it is unassigned, so
// no code goes to two recipients.
func (a *App) claimDigital(ctx context.Context, orgID string, st ClaimState, giftID string) (Recipient, error) {
	after := ""
	for range maxCodeTries {
		now := a.store.Now()
		code, ok, err := a.store.NextCode(ctx, orgID, giftID, giftcodes.TakeFrom(now), after)
		if err != nil {
			return Recipient{}, err
		}
		if !ok {
			return Recipient{}, CodesGone()
		}
		p, err := DecideDigitalClaim(orgID, st, code, now)
		if err != nil {
			return Recipient{}, err
		}
		switch err := a.commitClaim(ctx, p); {
		case errors.Is(err, ErrCodeTaken):
			after = code.Key
			continue
		case errors.Is(err, ErrOutOfStock):
			return Recipient{}, CodesGone()
		case err != nil:
			return Recipient{}, err
		}
		return p.Recipient.Recipient, nil
	}
	return Recipient{}, gifting.Unavailable(fmt.Errorf("claim of digital gift %q: %d codes were taken by other claims first", giftID, maxCodeTries))
}

// commitClaim commits p, through the wallet when it refunds (the refund
// and its ledger entry in the claim's transaction). An ended campaign is
// ErrCampaignGone; the store's other outcomes are returned as they are.
func (a *App) commitClaim(ctx context.Context, p ClaimPlan) error {
	var err error
	if p.Refund > 0 {
		_, err = wallet.Apply(ctx, a.store, p.RefundChange(), func(ctx context.Context, w wallet.Plan) error {
			p.Wallet = &w
			return a.store.CommitClaim(ctx, p)
		})
	} else {
		err = a.store.CommitClaim(ctx, p)
	}
	if errors.Is(err, ErrCampaignEnded) {
		return ErrCampaignGone
	}
	return err
}

// Expire moves an unclaimed recipient to expired (DecideExpiry) in one
// transaction with its refund (ClaimStore.CommitExpiry): the recipient,
// the campaign's counters (wherever it is: a deleted campaign's recipients
// can no longer claim, and their credits come back all the same, on its
// archived copy) and, when it held credits, the wallet's refund with its
// ledger entry. With onlyDue it expires the recipient only once its claim
// period is over (the scheduler); without, any unclaimed one (a completed
// or deleted campaign). expired is false when there was nothing to do:
// claimed, already expired, or not due yet.
//
// Errors: NOT_FOUND (recipient, or its campaign gone).
func (a *App) Expire(ctx context.Context, orgID, campaignID, recipientID string, onlyDue bool) (expired bool, err error) {
	archived := false
	for attempt := 1; ; attempt++ {
		cur, err := a.load(ctx, orgID, campaignID, recipientID)
		if err != nil {
			return false, err
		}
		p, ok, err := DecideExpiry(orgID, cur, onlyDue, a.store.Now())
		if err != nil || !ok {
			return false, err
		}
		p.Archived = archived
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
			continue // the recipient changed since read (a claim): read again
		case errors.Is(err, ErrCampaignMissing) && !archived:
			// The campaign was deleted: its counters moved to its
			// archived copy, which a campaign never leaves.
			archived = true
			continue
		case errors.Is(err, ErrCampaignMissing):
			return false, gifting.NotFound("campaign", campaignID)
		}
		return false, err
	}
}

// expireCounted expires a recipient (Expire) and counts it; a recipient
// gone with its campaign is nothing to do.
func (a *App) expireCounted(ctx context.Context, orgID, campaignID, recipientID string, onlyDue bool) error {
	expired, err := a.Expire(ctx, orgID, campaignID, recipientID, onlyDue)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return nil
	}
	if err != nil || !expired {
		return err
	}
	metrics.Count(orgID, map[string]int64{metrics.RecipientsExpired: 1})
	return nil
}

// ExpireCampaign does one slice of the expiry of a completed or deleted
// campaign's unclaimed recipients, from cursor ("" for the first): each
// unclaimed recipient of the slice expires with its refund. A recipient
// claimed or expired meanwhile is left alone, so a slice run twice refunds
// once. The slice's cursor goes to the expiry's due item, and the last
// slice removes it. It returns the cursor of the next slice; done when
// there is none (or the campaign is neither completed nor deleted).
func (a *App) ExpireCampaign(ctx context.Context, orgID, campaignID, cursor string) (next string, done bool, err error) {
	c, err := a.store.RecipientCampaign(ctx, orgID, campaignID)
	switch {
	case errors.Is(err, ErrNoCampaign):
		// Deleted: its recipients can no longer claim. (A campaign that
		// never existed has no recipients to read.)
	case err != nil:
		return "", false, err
	case !c.Completed:
		return "", true, nil // only a completed or deleted campaign expires everyone at once
	}
	ids, next, done, err := a.store.UnclaimedRecipients(ctx, orgID, campaignID, cursor)
	if err != nil {
		return "", false, err
	}
	for _, id := range ids {
		if err := a.expireCounted(ctx, orgID, campaignID, id, false); err != nil {
			return "", false, err
		}
	}
	if err := a.store.CampaignExpiryProgressed(ctx, orgID, campaignID, next, done); err != nil {
		return "", false, err
	}
	return next, done, nil
}
