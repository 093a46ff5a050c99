package service

import (
	"context"
	"log/slog"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/metrics"
)

// RecipientStore is the storage of recipients the use cases write.
type RecipientStore interface {
	// AddRecipient writes the recipient and its debit in one transaction.
	AddRecipient(ctx context.Context, in gifting.AddRecipientInput) (gifting.AddRecipientResult, error)
	// AddedRecipientNotEmailed rewrites an add-recipient's stored
	// idempotent response with emailSent false.
	AddedRecipientNotEmailed(ctx context.Context, orgID string, res gifting.AddRecipientResult, idem *gifting.Idempotent[gifting.AddedRecipient]) (gifting.AddedRecipient, error)
	// MoveRecipient moves a recipient along its state machine.
	MoveRecipient(ctx context.Context, orgID, campaignID, recipientID string, to gifting.RecipientStatus) (gifting.Recipient, error)
}

// AddRecipient adds a contact to a campaign as a recipient and pays for it
// (in carries the organization, campaign, contact, source and idempotency
// key; the service fills in the page URLs and whether it invites). When a
// mailer is configured and the campaign's invitation is due at once, the
// recipient is written pending with its invitation claimed, which goes out
// right after the write (the recipient then moves to invite_sent); if it
// cannot, the recipient stays pending, the scheduler retries it, and the
// result (and its stored idempotent response) says emailSent false.
//
// Errors: NOT_FOUND (campaign missing, deleted or another org's), CONFLICT
// (campaign not accepting recipients; contact already a recipient of it),
// INSUFFICIENT_CREDITS (nothing written), IDEMPOTENCY_KEY_REUSED,
// VALIDATION_FAILED (contact).
func (s *Service) AddRecipient(ctx context.Context, in gifting.AddRecipientInput) (gifting.AddRecipientResult, error) {
	in.PublicBaseURL, in.Invite = s.cfg.PublicBaseURL, s.cfg.Mailer != nil
	res, err := s.store.AddRecipient(ctx, in)
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
	if res.Invited() && !s.sendInvitation(ctx, in.OrgID, res.Invitation()) {
		out, err := s.store.AddedRecipientNotEmailed(context.WithoutCancel(ctx), in.OrgID, res, in.Idempotency)
		if err != nil {
			Logger(ctx).ErrorContext(ctx, "add-recipient: stored response not rewritten", slog.String("recipientId", res.Recipient.RecipientID),
				slog.String("error", err.Error()))
		}
		res.Response = out
	}
	return res, nil
}

// MoveRecipient moves a recipient to status to.
//
// Errors: NOT_FOUND (campaign or recipient), CONFLICT (a move the
// recipient's state machine does not allow).
func (s *Service) MoveRecipient(ctx context.Context, orgID, campaignID, recipientID string, to gifting.RecipientStatus) (gifting.Recipient, error) {
	return s.store.MoveRecipient(ctx, orgID, campaignID, recipientID, to)
}

// sendInvitation sends the invitation of a recipient the store has just
// written with its invitation claimed (gifting.Invitation), through the
// same path as the scheduler's emails (deliver, then EmailSent, which moves
// the recipient to invite_sent), and reports whether it went out. The
// write has happened, so the send must not be cut short by the caller
// going away. A claim with too little of its lease left is not used
// (gifting.EmailSchedule.HolderMaySend): the tick sends it after the
// lease. When the send fails the failure is recorded and the claim
// released, so a failure a later try may get past is retried by the
// scheduler and a permanent one (a rejection, a suppressed address) is
// kept with its reason; the recipient stays pending.
func (s *Service) sendInvitation(ctx context.Context, orgID string, inv gifting.Invitation) bool {
	ctx = context.WithoutCancel(ctx)
	rc := inv.Recipient
	const kind = "addressConfirmation"
	e := rc.Emails.AddressConfirmation
	if e.ClaimedAt == nil || !e.HolderMaySend(*e.ClaimedAt, s.store.Now()) {
		return false
	}
	id, failure, err := s.deliver(ctx, orgID, rc, kind)
	if err == nil {
		_ = s.sent(ctx, orgID, rc, kind, id)
		return true
	}
	log := Logger(ctx).With(slog.String("recipientId", rc.RecipientID))
	log.WarnContext(ctx, "invitation not sent; recipient left pending", slog.String("error", err.Error()))
	if err := s.store.EmailFailed(ctx, orgID, rc.CampaignID, rc.RecipientID, kind, failure, *e.ClaimedAt); err != nil {
		log.ErrorContext(ctx, "record failed invitation; it is retried after its lease", slog.String("error", err.Error()))
	}
	return false
}
