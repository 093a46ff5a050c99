package recipient

import (
	"context"
	"errors"
	"log/slog"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/metrics"
	"github.com/giftcampaign/service/shared/retry"
	"github.com/giftcampaign/service/shared/wallet"
)

// Add adds a contact (created, or merged into the contact with the same
// email) to a campaign as a recipient and pays for it (Write), counts it,
// and sends its invitation when the invitation is due at once and a mailer
// is configured: the recipient is written pending with its invitation
// claimed, which goes out right after the write (the recipient then moves
// to invite_sent). If it cannot, the recipient stays pending, the
// scheduler retries it, and the result (and its stored idempotent
// response) says emailSent false.
//
// Errors: Write's.
func (a *App) Add(ctx context.Context, in AddInput) (AddResult, error) {
	in.PublicBaseURL, in.Invite = a.cfg.PublicBaseURL, a.cfg.Mailer != nil
	res, err := a.Write(ctx, in)
	if err != nil {
		if gifting.ErrorCode(err) == gifting.CodeInsufficientCredits {
			metrics.Count(in.OrgID, map[string]int64{metrics.InsufficientCredits: 1})
		}
		return res, err
	}
	if res.Replay == nil {
		metrics.Count(in.OrgID, map[string]int64{
			metrics.RecipientsAdded: 1,
			metrics.CreditsSpent:    res.Recipient.CreditsCharged,
		})
	}
	if res.Invited() && !a.SendInvitation(ctx, in.OrgID, res.Invitation()) {
		res.Response.EmailSent = false
		if err := a.notEmailed(context.WithoutCancel(ctx), in, res.Response); err != nil {
			a.cfg.Logger(ctx).ErrorContext(ctx, "add-recipient: stored response not rewritten",
				slog.String("recipientId", res.Recipient.RecipientID), slog.String("error", err.Error()))
		}
	}
	return res, nil
}

// notEmailed rewrites the stored idempotent response of in (none without a
// key) as added: its invitation could not go out at once. Only the record
// written with the recipient (same request) is replaced.
func (a *App) notEmailed(ctx context.Context, in AddInput, added Added) error {
	w, err := in.Idempotency.Write(added)
	if err != nil || w == nil {
		return err
	}
	return a.store.RewriteRecord(ctx, in.OrgID, *w)
}

// Write is add-recipient's transaction, without the invitation's send (Add
// sends it): it reads with one BatchGetItem (campaign, wallet, the email's
// slot, the idempotency record) and a second one (template, the campaign's
// only gift, the contact holding the email, the marker of a recipient
// written before derived keys), decides (Admit, DecideAdd) and commits in
// one transaction the wallet's debit with its ledger entry, the contact,
// the recipient (whose key, derived from the campaign and the contact,
// makes it unique), the campaign's counters and the idempotency record.
// It decides again from the balance found when another change moved it
// first, and reads again when the campaign or the contact changed.
//
// Errors: NOT_FOUND (campaign missing, deleted or another org's; no
// wallet), CONFLICT (campaign not accepting recipients, priced out of
// bounds or below its gift; contact already a recipient of it),
// INSUFFICIENT_CREDITS (nothing written), IDEMPOTENCY_KEY_REUSED,
// VALIDATION_FAILED (contact).
func (a *App) Write(ctx context.Context, in AddInput) (AddResult, error) {
	if err := contact.CheckCarried(&in.Contact); err != nil {
		return AddResult{}, err
	}
	for attempt := 1; ; attempt++ {
		res, err := a.addOnce(ctx, in)
		if reread(err) && attempt < retry.MaxAttempts {
			if err := retry.Pause(ctx, attempt); err != nil {
				return AddResult{}, err
			}
			continue
		}
		if err == nil || res.Replay != nil {
			return res, err
		}
		// A concurrent request with the same key may have spent the
		// credits this one was about to: then it is a replay.
		if k := in.Idempotency.KeyOf(); k != nil && gifting.ErrorCode(err) == gifting.CodeInsufficientCredits {
			rec, rerr := a.store.IdempotencyRecord(ctx, in.OrgID, *k)
			if rerr != nil {
				return AddResult{}, rerr
			}
			if stored, rerr := k.Replay(rec, a.store.Now()); stored != nil || rerr != nil {
				return AddResult{Replay: stored}, rerr
			}
		}
		return res, err
	}
}

// reread reports whether err says something add-recipient read changed
// before its commit: read again and decide again.
func reread(err error) bool {
	return errors.Is(err, ErrContactChanged) || errors.Is(err, ErrCampaignChanged) || errors.Is(err, errRecordExpired)
}

// errRecordExpired: the idempotency record that beat a commit had expired
// by the time it was read back, so the key is free again: read again.
var errRecordExpired = errors.New("add recipient: the idempotency record expired meanwhile")

// addOnce reads what add-recipient needs, decides and commits once, the
// debit decided again on a moved balance (wallet.ApplyFrom, from the
// balance the first read found).
func (a *App) addOnce(ctx context.Context, in AddInput) (AddResult, error) {
	b, err := a.store.LoadAdd(ctx, in)
	if err != nil {
		return AddResult{}, err
	}
	if stored, err := in.Replay(b.Record, a.store.Now()); stored != nil || err != nil {
		return AddResult{Replay: stored}, err
	}
	c, err := Admit(in, b)
	if err != nil {
		return AddResult{}, err
	}
	st, err := a.store.LoadAddKit(ctx, in, c, b.Slot)
	if err != nil {
		return AddResult{}, err
	}
	p, err := DecideAdd(in, st, a.store.Now())
	if err != nil {
		return AddResult{}, err
	}
	_, err = wallet.ApplyFrom(ctx, a.store, p.Debit, b.Balance, func(ctx context.Context, w wallet.Plan) error {
		if p, err = p.Settled(w); err != nil {
			return err
		}
		return a.store.CommitAdd(ctx, p)
	})
	var taken *KeyTaken
	switch {
	case errors.As(err, &taken):
		stored, rerr := in.Idempotency.Key.Replay(taken.Record, a.store.Now())
		if stored == nil && rerr == nil {
			return AddResult{}, errRecordExpired
		}
		return AddResult{Replay: stored}, rerr
	case errors.Is(err, ErrAlreadyRecipient):
		return AddResult{}, AlreadyRecipient(p.Contact.Contact.ContactID, c.CampaignID)
	case err != nil:
		return AddResult{}, err
	}
	return p.Result, nil
}
