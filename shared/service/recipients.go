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
	// UninviteAddedRecipient undoes an add-recipient's invitation mark and
	// rewrites its stored idempotent response.
	UninviteAddedRecipient(ctx context.Context, orgID string, res gifting.AddRecipientResult, idem *gifting.Idempotent[gifting.AddedRecipient]) (gifting.AddedRecipient, error)
	// UninviteRecipient undoes the invitation mark of a launched recipient.
	UninviteRecipient(ctx context.Context, orgID string, inv gifting.Invitation) error
	// MoveRecipient moves a recipient along its state machine.
	MoveRecipient(ctx context.Context, orgID, campaignID, recipientID string, to gifting.RecipientStatus) (gifting.Recipient, error)
}

// AddRecipient adds a contact to a campaign as a recipient and pays for it
// (in carries the organization, campaign, contact, source and idempotency
// key; the service fills in the page URLs and whether it invites). When a
// mailer is configured and the campaign's invitation is due at once, the
// invitation goes out right after the write; if it cannot, the recipient
// goes back to pending and the result (and its stored idempotent response)
// says emailSent false.
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
	if res.Invited() {
		s.sendInvitation(ctx, in.OrgID, res.Invitation(), func(ctx context.Context) error {
			var err error
			res.Response, err = s.store.UninviteAddedRecipient(ctx, in.OrgID, res, in.Idempotency)
			return err
		})
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
// written as invited, its invitation claimed (gifting.Invitation), through
// the same path as the scheduler's emails (deliver, then EmailSent), and
// reports whether it went out. The write has happened, so the send must not
// be cut short by the caller going away. When the send fails, undo puts the
// recipient back to pending, its claim released; then the failure is
// recorded, so a failure a later try may get past is retried by the
// scheduler and a permanent one (a rejection, a suppressed address) is
// kept with its reason. Add-recipient and the launch job each pass their
// own undo (UninviteAddedRecipient, which also rewrites the stored
// idempotent response, and UninviteRecipient).
func (s *Service) sendInvitation(ctx context.Context, orgID string, inv gifting.Invitation, undo func(context.Context) error) bool {
	ctx = context.WithoutCancel(ctx)
	rc := inv.Recipient
	const kind = "addressConfirmation"
	id, failure, err := s.deliver(ctx, orgID, rc, kind)
	if err == nil {
		_ = s.sent(ctx, orgID, rc, kind, id)
		return true
	}
	log := Logger(ctx).With(slog.String("recipientId", rc.RecipientID))
	log.WarnContext(ctx, "invitation not sent; recipient left pending", slog.String("error", err.Error()))
	if err := undo(ctx); err != nil {
		log.ErrorContext(ctx, "undo invitation", slog.String("error", err.Error()))
		return false
	}
	if err := s.store.EmailFailed(ctx, orgID, rc.CampaignID, rc.RecipientID, kind, failure); err != nil {
		log.ErrorContext(ctx, "record failed invitation", slog.String("error", err.Error()))
	}
	return false
}
