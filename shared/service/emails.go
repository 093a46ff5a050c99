package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/metrics"
)

// EmailHold is how long the scheduler puts off a recipient's emails that
// its campaign does not send now (a draft, a paused campaign, or no mail
// provider configured): they go out at most this long after the campaign
// launches or resumes.
const EmailHold = 10 * time.Minute

// EmailStore is the storage of recipients' scheduled emails.
type EmailStore interface {
	// Now is the store's clock.
	Now() time.Time
	// Recipient reads a recipient.
	Recipient(ctx context.Context, orgID, campaignID, recipientID string) (gifting.Recipient, error)
	// Campaign reads a campaign.
	Campaign(ctx context.Context, orgID, campaignID string) (campaign.Campaign, error)
	// ClaimEmail claims an email for sending, CONFLICT when it is not
	// waiting.
	ClaimEmail(ctx context.Context, orgID, campaignID, recipientID, kind string) (gifting.Recipient, error)
	// EmailSent records an accepted email and its message id.
	EmailSent(ctx context.Context, orgID, campaignID, recipientID, kind, messageID string) error
	// EmailFailed records a failed send of the claim made at claimedAt;
	// failure "" is retried later.
	EmailFailed(ctx context.Context, orgID, campaignID, recipientID, kind, failure string, claimedAt time.Time) error
	// HoldEmails puts a recipient's waiting emails off until until.
	HoldEmails(ctx context.Context, orgID, campaignID, recipientID string, until time.Time) error
	// IsSuppressed reports whether the organization never mails email.
	IsSuppressed(ctx context.Context, orgID, email string) (bool, error)
	mailStopper
}

// runRecipientEmails is the job of a recipient that is due (the scheduler
// runs it from the due index): an unclaimed recipient whose claim expiry
// has come expires, with its refund, and its emails stop; otherwise it
// sends each of the recipient's emails due now that its campaign sends
// (campaign.Campaign.Sends), each claimed first, and puts the others off by
// EmailHold.
func (s *Service) runRecipientEmails(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	campaignID, recipientID, ok := gifting.SplitRecipientRef(j.Ref)
	if !ok {
		return nil, fmt.Errorf("recipient emails job: malformed reference %q", j.Ref)
	}
	r, err := s.store.Recipient(ctx, j.OrgID, campaignID, recipientID)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return nil, nil // gone with its campaign
	}
	if err != nil {
		return nil, err
	}
	now := s.store.Now()
	if r.ExpiryDue(now) {
		return nil, s.expire(ctx, j.OrgID, campaignID, recipientID, true)
	}
	due := r.DueEmails(now)
	if len(due) == 0 {
		return nil, nil // sent or stopped since the tick saw it
	}
	c, err := s.store.Campaign(ctx, j.OrgID, campaignID)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		// Deleted: none of its emails will go out. Stopping them takes
		// the recipient out of the due index (but for its expiry, while
		// unclaimed), so the tick does not come back to it every lease.
		_, err := s.store.StopEmails(ctx, j.OrgID, campaignID, recipientID, "", gifting.EmailCampaignDeleted)
		if gifting.ErrorCode(err) == gifting.CodeNotFound {
			return nil, nil
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	held := false
	for _, kind := range due {
		if s.cfg.Mailer == nil || !c.Sends(kind) {
			held = true
			continue
		}
		if err := s.sendScheduled(ctx, j.OrgID, campaignID, recipientID, kind); err != nil {
			return nil, err
		}
	}
	if held {
		return nil, s.store.HoldEmails(ctx, j.OrgID, campaignID, recipientID, now.Add(EmailHold))
	}
	return nil, nil
}

// sendScheduled claims the email kind of a recipient and sends it. An
// email another sender holds is left to it; one whose earlier senders all
// failed is recorded as failed by the claim (gifting.ErrEmailGivenUp).
func (s *Service) sendScheduled(ctx context.Context, orgID, campaignID, recipientID, kind string) error {
	r, err := s.store.ClaimEmail(ctx, orgID, campaignID, recipientID, kind)
	if gifting.ErrorCode(err) == gifting.CodeConflict {
		return nil
	}
	if err != nil {
		return err
	}
	claimedAt := *r.Emails.Kind(kind).ClaimedAt
	id, failure, err := s.deliver(ctx, orgID, r, kind)
	if err != nil {
		return errors.Join(err, s.store.EmailFailed(ctx, orgID, campaignID, recipientID, kind, failure, claimedAt))
	}
	return s.sent(ctx, orgID, r, kind, id)
}

// deliver sends the claimed email kind of r unless its address is
// suppressed, and returns the provider's message id; on failure, the
// failure to record (a permanent one, or "" for one a later try may get
// past) and the error. It writes nothing.
func (s *Service) deliver(ctx context.Context, orgID string, r gifting.Recipient, kind string) (messageID, failure string, err error) {
	suppressed, err := s.store.IsSuppressed(ctx, orgID, r.ContactDetails.Email)
	if err != nil {
		return "", "", err
	}
	if suppressed {
		return "", gifting.EmailSuppressed, errSuppressed
	}
	e := r.Emails.Kind(kind)
	// A send that hangs must end well inside its claim's margin
	// (gifting.EmailSendMargin), or its claim could be taken over while it
	// still might go out.
	ctx, cancel := context.WithTimeout(ctx, mailTimeout)
	defer cancel()
	sent, err := s.cfg.Mailer.SendEmail(ctx, mail.Message{
		To: r.ContactDetails.Email, Subject: e.Subject, HTML: e.HTML, Kind: kind,
		// The landing page id: unguessable, and no personal data.
		UnsubscribeToken: r.LandingPageID,
		OrgID:            orgID, CampaignID: r.CampaignID, RecipientID: r.RecipientID, SentAt: s.store.Now(),
	})
	var rejected *mail.Rejected
	if errors.As(err, &rejected) {
		return "", rejected.Reason, err
	}
	if err != nil {
		return "", "", err
	}
	return sent.MessageID, "", nil
}

// mailTimeout bounds one email's send, its retries included: half of
// gifting.EmailSendMargin.
const mailTimeout = 30 * time.Second

// errSuppressed is why an email to a suppressed address was not sent.
var errSuppressed = errors.New("the address is on the organization's suppression list")

// sent records the accepted email kind of r. The email went out, so a
// failure to record it is logged, not retried here: the entry stays
// claimed, and once its lease is over the tick sends it again (the one
// way an email goes out twice; see gifting/email_lease.go).
func (s *Service) sent(ctx context.Context, orgID string, r gifting.Recipient, kind, messageID string) error {
	metrics.Count(orgID, map[string]int64{metrics.EmailsSent: 1})
	if err := s.store.EmailSent(ctx, orgID, r.CampaignID, r.RecipientID, kind, messageID); err != nil {
		Logger(ctx).ErrorContext(ctx, "email sent but not recorded; it is sent again after its lease", slog.String("recipientId", r.RecipientID),
			slog.String("kind", kind), slog.String("error", err.Error()))
	}
	return nil
}

// MailFeedbackStore is the storage the mail provider's feedback changes.
type MailFeedbackStore interface {
	// MessageRecipient returns whose email a sent message was.
	MessageRecipient(ctx context.Context, messageID string) (orgID, campaignID, recipientID, kind string, found bool, err error)
	mailStopper
}

// HandleMailEvents applies the bounce and complaint notifications of an
// SNS delivery from the mail-events topic (mail.ParseSNSEvent): for each
// hard bounce or complaint of a message this service sent (found by its
// message id), the recipient's email is marked bounced or complained, its
// scheduled emails stop, and the address joins the organization's
// suppression list. Soft bounces and other notifications change nothing.
// Every step is idempotent, so SNS's redelivery is harmless; an error
// fails the invocation and SNS retries it.
func (s *Service) HandleMailEvents(ctx context.Context, ev events.SNSEvent) error {
	fs, err := mail.ParseSNSEvent(ev)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if !f.Suppresses() {
			continue
		}
		orgID, campaignID, recipientID, kind, found, err := s.store.MessageRecipient(ctx, f.MessageID)
		if err != nil {
			return err
		}
		if !found {
			continue // not ours, or too old to matter
		}
		failure := gifting.EmailBounced
		if f.Kind == mail.Complained {
			failure = gifting.EmailComplained
		}
		if err := stopMail(ctx, s.store, orgID, campaignID, recipientID, kind, failure, f.Email); err != nil {
			return err
		}
	}
	return nil
}

// mailStopper is the storage that stops a recipient's mail.
type mailStopper interface {
	// StopEmails records a failure on an email and stops the rest.
	StopEmails(ctx context.Context, orgID, campaignID, recipientID, kind, failure string) (gifting.Recipient, error)
	// Suppress adds an address to the organization's suppression list.
	Suppress(ctx context.Context, orgID, email, reason string) error
}

// stopMail records failure on a recipient's email kind ("" for none),
// stops its other emails and suppresses address (the recipient's own when
// ""): a bounce, a complaint, an unsubscribe.
func stopMail(ctx context.Context, store mailStopper, orgID, campaignID, recipientID, kind, failure, address string) error {
	r, err := store.StopEmails(ctx, orgID, campaignID, recipientID, kind, failure)
	if err != nil && gifting.ErrorCode(err) != gifting.CodeNotFound {
		return err
	}
	if address == "" {
		address = r.ContactDetails.Email
	}
	if address == "" {
		return nil // the recipient is gone with its campaign
	}
	if err := store.Suppress(ctx, orgID, address, failure); err != nil {
		return err
	}
	metrics.Count(orgID, map[string]int64{metrics.EmailsStopped: 1})
	return nil
}
