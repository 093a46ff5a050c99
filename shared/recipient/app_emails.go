package recipient

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/metrics"
)

// EmailHold is how long the scheduler puts off a recipient's emails that
// its campaign does not send now (a draft, a paused campaign, or no mail
// provider configured): they go out at most this long after the campaign
// launches or resumes.
const EmailHold = 10 * time.Minute

// mailTimeout bounds one email's send, its retries included: half of
// EmailSendMargin.
const mailTimeout = 30 * time.Second

// errSuppressed is why an email to a suppressed address was not sent.
var errSuppressed = errors.New("the address is on the organization's suppression list")

// ClaimEmail claims the email kind of a recipient for sending now
// (DecideClaimEmail) and returns the recipient as claimed. A claim whose
// lease ran out is taken over; when that was the email's last attempt, the
// failure is written and ClaimEmail returns ErrEmailGivenUp. Errors:
// NOT_FOUND (recipient), CONFLICT (the email is not waiting: sent, claimed
// by another sender whose lease runs, failed or no longer active).
func (a *App) ClaimEmail(ctx context.Context, orgID, campaignID, recipientID, kind string) (Recipient, error) {
	return a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
		return DecideClaimEmail(orgID, cur, kind, a.store.Now())
	})
}

// EmailSent records that the mail provider accepted the email kind of a
// recipient as messageID (DecideEmailSent). Errors: NOT_FOUND (recipient
// or campaign).
func (a *App) EmailSent(ctx context.Context, orgID, campaignID, recipientID, kind, messageID string) error {
	_, err := a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
		return DecideEmailSent(orgID, cur, kind, messageID, a.store.Now()), nil
	})
	return err
}

// EmailFailed records a failed send of the email kind of a recipient,
// claimed at claimedAt, and releases its claim (DecideEmailFailed):
// failure is the reason it will never go out, "" for one a later tick
// retries. A claim another sender took over meanwhile is left to it, with
// nothing written. Errors: NOT_FOUND (recipient).
func (a *App) EmailFailed(ctx context.Context, orgID, campaignID, recipientID, kind, failure string, claimedAt time.Time) error {
	_, err := a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
		u, ok := DecideEmailFailed(orgID, cur, kind, failure, claimedAt, a.store.Now())
		if !ok {
			return Update{}, errNothingToWrite
		}
		return u, nil
	})
	return err
}

// StopEmails records failure on the email kind of a recipient (when not
// "") and on every email of it still to be sent, which takes it out of the
// due index (DecideStopEmails): a bounce, a complaint, an unsubscribe.
// Errors: NOT_FOUND (recipient).
func (a *App) StopEmails(ctx context.Context, orgID, campaignID, recipientID, kind, failure string) (Recipient, error) {
	return a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
		return DecideStopEmails(orgID, cur, kind, failure, a.store.Now()), nil
	})
}

// SendInvitation sends the invitation of a recipient just written with its
// invitation claimed, through the same path as the scheduler's emails
// (deliver, then EmailSent, which moves the recipient to invite_sent), and
// reports whether it went out. The write has happened, so the send must
// not be cut short by the caller going away. A claim with too little of
// its lease left is not used (EmailSchedule.HolderMaySend): the tick sends
// it after the lease. When the send fails the failure is recorded and the
// claim released, so a failure a later try may get past is retried by the
// scheduler and a permanent one (a rejection, a suppressed address) is kept
// with its reason; the recipient stays pending.
func (a *App) SendInvitation(ctx context.Context, orgID string, inv Invitation) bool {
	ctx = context.WithoutCancel(ctx)
	rc := inv.Recipient
	const kind = "addressConfirmation"
	e := rc.Emails.AddressConfirmation
	if a.cfg.Mailer == nil || e.ClaimedAt == nil || !e.HolderMaySend(*e.ClaimedAt, a.store.Now()) {
		return false
	}
	id, failure, err := a.deliver(ctx, orgID, rc, kind)
	if err == nil {
		a.sent(ctx, orgID, rc, kind, id)
		return true
	}
	log := a.cfg.Logger(ctx).With(slog.String("recipientId", rc.RecipientID))
	log.WarnContext(ctx, "invitation not sent; recipient left pending", slog.String("error", err.Error()))
	if err := a.EmailFailed(ctx, orgID, rc.CampaignID, rc.RecipientID, kind, failure, *e.ClaimedAt); err != nil {
		log.ErrorContext(ctx, "record failed invitation; it is retried after its lease", slog.String("error", err.Error()))
	}
	return false
}

// RunEmails is the job of a recipient that is due (the scheduler runs it
// from the due index): an unclaimed recipient whose claim expiry has come
// expires, with its refund, and its emails stop; otherwise it sends each of
// the recipient's emails due now that its campaign sends
// (Campaign.Sends), each claimed first, and puts the others off by
// EmailHold; all of them while the organization is suspended. A recipient gone with its campaign is nothing to do.
func (a *App) RunEmails(ctx context.Context, orgID, campaignID, recipientID string) error {
	cur, err := a.load(ctx, orgID, campaignID, recipientID)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return nil // gone with its campaign
	}
	if err != nil {
		return err
	}
	now := a.store.Now()
	if cur.ExpiryDue(now) {
		return a.expireCounted(ctx, orgID, campaignID, recipientID, true)
	}
	due := cur.DueEmails(now)
	if len(due) == 0 {
		return nil // sent or stopped since the tick saw it
	}
	c, err := a.store.RecipientCampaign(ctx, orgID, campaignID)
	if errors.Is(err, ErrNoCampaign) {
		// Deleted: none of its emails will go out. Stopping them takes
		// the recipient out of the due index (but for its expiry, while
		// unclaimed), so the tick does not come back to it every lease.
		_, err := a.StopEmails(ctx, orgID, campaignID, recipientID, "", EmailCampaignDeleted)
		if gifting.ErrorCode(err) == gifting.CodeNotFound {
			return nil
		}
		return err
	}
	if err != nil {
		return err
	}
	// A suspended organization's emails wait, as a paused campaign's do,
	// and go out at the first tick after it is resumed.
	suspended, err := a.store.OrgSuspended(ctx, orgID)
	if err != nil {
		return err
	}
	held := false
	for _, kind := range due {
		if a.cfg.Mailer == nil || suspended || !c.Sends(kind) {
			held = true
			continue
		}
		if err := a.sendScheduled(ctx, orgID, campaignID, recipientID, kind); err != nil {
			return err
		}
	}
	if held {
		return a.store.HoldEmails(ctx, orgID, campaignID, recipientID, now.Add(EmailHold))
	}
	return nil
}

// sendScheduled claims the email kind of a recipient and sends it. An
// email another sender holds is left to it; one whose earlier senders all
// failed is recorded as failed by the claim (ErrEmailGivenUp).
func (a *App) sendScheduled(ctx context.Context, orgID, campaignID, recipientID, kind string) error {
	r, err := a.ClaimEmail(ctx, orgID, campaignID, recipientID, kind)
	if gifting.ErrorCode(err) == gifting.CodeConflict {
		return nil
	}
	if err != nil {
		return err
	}
	claimedAt := *r.Emails.Kind(kind).ClaimedAt
	id, failure, err := a.deliver(ctx, orgID, r, kind)
	if err != nil {
		return errors.Join(err, a.EmailFailed(ctx, orgID, campaignID, recipientID, kind, failure, claimedAt))
	}
	a.sent(ctx, orgID, r, kind, id)
	return nil
}

// deliver sends the claimed email kind of r unless its address is
// suppressed, and returns the provider's message id; on failure, the
// failure to record (a permanent one, or "" for one a later try may get
// past) and the error. It writes nothing.
func (a *App) deliver(ctx context.Context, orgID string, r Recipient, kind string) (messageID, failure string, err error) {
	suppressed, err := a.store.IsSuppressed(ctx, orgID, r.ContactDetails.Email)
	if err != nil {
		return "", "", err
	}
	if suppressed {
		return "", EmailSuppressed, errSuppressed
	}
	msg, err := a.Compose(ctx, orgID, r, kind)
	if err != nil {
		return "", "", err
	}
	// The landing page id: unguessable, and no personal data.
	msg.UnsubscribeToken = r.LandingPageID
	msg.OrgID, msg.CampaignID, msg.RecipientID, msg.SentAt = orgID, r.CampaignID, r.RecipientID, a.store.Now()
	// A send that hangs must end well inside its claim's margin
	// (EmailSendMargin), or its claim could be taken over while it still
	// might go out.
	ctx, cancel := context.WithTimeout(ctx, mailTimeout)
	defer cancel()
	sent, err := a.cfg.Mailer.SendEmail(ctx, msg)
	var rejected *mail.Rejected
	if errors.As(err, &rejected) {
		return "", rejected.Reason, err
	}
	if err != nil {
		return "", "", err
	}
	return sent.MessageID, "", nil
}

// sent records the accepted email kind of r. The email went out, so a
// failure to record it is logged, not retried here: the entry stays
// claimed, and once its lease is over the tick sends it again (the one
// way an email goes out twice; see lease.go).
func (a *App) sent(ctx context.Context, orgID string, r Recipient, kind, messageID string) {
	metrics.Count(orgID, map[string]int64{metrics.EmailsSent: 1})
	if err := a.EmailSent(ctx, orgID, r.CampaignID, r.RecipientID, kind, messageID); err != nil {
		a.cfg.Logger(ctx).ErrorContext(ctx, "email sent but not recorded; it is sent again after its lease", slog.String("recipientId", r.RecipientID),
			slog.String("kind", kind), slog.String("error", err.Error()))
	}
}

// MailFeedback applies the mail provider's feedback fs (bounces,
// complaints): for each hard bounce or complaint of a message this service
// sent (found by its message id), the recipient's email is marked bounced
// or complained, its scheduled emails stop, and the address joins the
// organization's suppression list. Soft bounces and other notifications
// change nothing. Every step is idempotent, so a redelivery is harmless.
func (a *App) MailFeedback(ctx context.Context, fs []mail.Feedback) error {
	for _, f := range fs {
		if !f.Suppresses() {
			continue
		}
		orgID, campaignID, recipientID, kind, found, err := a.store.MessageRecipient(ctx, f.MessageID)
		if err != nil {
			return err
		}
		if !found {
			continue // not ours, or too old to matter
		}
		failure := EmailBounced
		if f.Kind == mail.Complained {
			failure = EmailComplained
		}
		if err := a.StopMail(ctx, orgID, campaignID, recipientID, kind, failure, f.Email); err != nil {
			return err
		}
	}
	return nil
}

// StopMail records failure on a recipient's email kind ("" for none),
// stops its other emails and suppresses address (the recipient's own when
// ""): a bounce, a complaint, an unsubscribe. A recipient gone with its
// campaign still has address suppressed when it is given.
func (a *App) StopMail(ctx context.Context, orgID, campaignID, recipientID, kind, failure, address string) error {
	r, err := a.StopEmails(ctx, orgID, campaignID, recipientID, kind, failure)
	if err != nil && gifting.ErrorCode(err) != gifting.CodeNotFound {
		return err
	}
	if address == "" {
		address = r.ContactDetails.Email
	}
	if address == "" {
		return nil // the recipient is gone with its campaign
	}
	if err := a.store.Suppress(ctx, orgID, address, failure); err != nil {
		return err
	}
	metrics.Count(orgID, map[string]int64{metrics.EmailsStopped: 1})
	return nil
}
