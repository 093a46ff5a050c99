package recipient

import (
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Emails is the recipient's email schedule, one entry per kind of
// gifting.EmailKinds.
type Emails struct {
	AddressConfirmation EmailSchedule
	Reminder1           EmailSchedule
	Reminder2           EmailSchedule
	Shipped             EmailSchedule
	PostDelivery        EmailSchedule
	PostAcknowledgement EmailSchedule
}

// Kind returns the schedule entry of an email kind, nil for an unknown kind.
func (e *Emails) Kind(kind string) *EmailSchedule {
	switch kind {
	case "addressConfirmation":
		return &e.AddressConfirmation
	case "reminder1":
		return &e.Reminder1
	case "reminder2":
		return &e.Reminder2
	case "shipped":
		return &e.Shipped
	case "postDelivery":
		return &e.PostDelivery
	case "postAcknowledgement":
		return &e.PostAcknowledgement
	}
	return nil
}

// EmailSchedule is one scheduled email. Active is false when the template
// has no such email or it no longer applies (a reminder after the address
// was confirmed). ScheduledTime is an RFC 3339 time, or "" while the email
// waits for an event (delivery, acknowledgement). Sent and SentAt say the
// mail provider accepted the message; SentAt is nil until then.
//
// The other fields are the sending's own record. ClaimedAt is when a
// sender took the email (see Recipient.ClaimEmail): a lease of EmailLease,
// after which an email still not recorded as sent is claimed again, so it
// goes out at least once (lease.go). MessageID is the provider's id of the
// message sent. Attempts counts the sends that failed for a reason a later
// one may get past, and RetryAt is when the next may run. Failure, once
// set, says why the email will never go out (the Email… failures) or,
// after it went out, that it bounced or drew a complaint.
type EmailSchedule struct {
	Active        bool
	ScheduledTime string
	Sent          bool
	SentAt        *time.Time
	HTML          string
	Subject       string
	ClaimedAt     *time.Time
	MessageID     string
	Attempts      int
	RetryAt       *time.Time
	Failure       string
}

// Failures recorded on an email entry (EmailSchedule.Failure) besides the
// mail provider's rejection reasons (shared/mail's Reason constants).
const (
	// EmailSuppressed: the address is on the organization's suppression
	// list, so the email was not sent.
	EmailSuppressed = "suppressed"
	// EmailAttemptsExhausted: MaxEmailAttempts sends failed.
	EmailAttemptsExhausted = "attemptsExhausted"
	// EmailBounced and EmailComplained: the email went out, then bounced
	// for good or drew a complaint; the recipient's later emails stop.
	EmailBounced    = "bounced"
	EmailComplained = "complained"
	// EmailUnsubscribed: the recipient unsubscribed; later emails stop.
	EmailUnsubscribed = "unsubscribed"
	// EmailCampaignDeleted: the recipient's campaign was deleted before
	// the email was due.
	EmailCampaignDeleted = "campaignDeleted"
	// EmailExpired: the recipient expired before the email went out: it
	// never will.
	EmailExpired = "expired"
	// EmailDeclined: the recipient said "No thanks" before the email went
	// out: it never will.
	EmailDeclined = "declined"
)

// MaxEmailAttempts bounds the sends of one email that fail for a reason a
// later send may get past (throttling, the provider down); the last one
// records EmailAttemptsExhausted.
const MaxEmailAttempts = 5

// EmailRetryAfter is how long after its n-th failed send an email is tried
// again: 5 minutes, doubling.
func EmailRetryAfter(n int) time.Duration {
	return 5 * time.Minute << min(max(n-1, 0), 6)
}

// waiting reports whether e is still to be sent: active, scheduled, not
// sent, claimed or failed.
func (e EmailSchedule) waiting() bool {
	return e.Active && e.ScheduledTime != "" && !e.Sent && e.ClaimedAt == nil && e.Failure == ""
}

// dueAt is when a waiting e is due: its scheduled time, or its retry time
// when later.
func (e EmailSchedule) dueAt() time.Time {
	at, err := time.Parse(time.RFC3339Nano, e.ScheduledTime)
	if err != nil {
		return time.Time{} // a malformed time is due at once rather than never
	}
	if e.RetryAt != nil && e.RetryAt.After(at) {
		return *e.RetryAt
	}
	return at
}

// NextEmail returns the earliest email of the recipient that needs a
// sender (EmailSchedule.NextSendAt: one waiting, or one whose sender's
// lease runs out) and when; ok is false when none does.
func (r *Recipient) NextEmail() (kind string, at time.Time, ok bool) {
	for _, k := range gifting.EmailKinds {
		t, needs := r.Emails.Kind(k).NextSendAt()
		if needs && (!ok || t.Before(at)) {
			kind, at, ok = k, t, true
		}
	}
	return kind, at, ok
}

// DueEmails returns the kinds of the recipient's emails that need a sender
// at now (waiting and due, or claimed by a sender whose lease is over), in
// gifting.EmailKinds order.
func (r *Recipient) DueEmails(now time.Time) []string {
	var kinds []string
	for _, k := range gifting.EmailKinds {
		if at, ok := r.Emails.Kind(k).NextSendAt(); ok && !at.After(now) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// ErrEmailGivenUp is ClaimEmail's CONFLICT for an email whose senders lost
// MaxEmailAttempts leases or sends: the recipient now records
// EmailAttemptsExhausted on it, and the use case writes that.
var ErrEmailGivenUp = gifting.Errorf(gifting.CodeConflict, "the email's senders failed %d times; it is recorded as failed", MaxEmailAttempts)

// ClaimEmail takes the email kind for sending at now, or returns CONFLICT
// when it needs no sender (sent, failed or no longer active), another
// sender's lease on it runs, or it is not due yet (a reminder put off by a
// late invitation, see MarkEmailSent). A claim whose lease is over
// (EmailSchedule.ClaimRetryable) is taken over and counts as a failed
// attempt; at MaxEmailAttempts the email fails instead
// (EmailAttemptsExhausted) and ClaimEmail returns ErrEmailGivenUp. The
// claim is written conditioned on the version read, so of two senders only
// one claims an email.
func (r *Recipient) ClaimEmail(kind string, now time.Time) error {
	e := r.Emails.Kind(kind)
	if e == nil {
		return gifting.Errorf(gifting.CodeConflict, "recipient %q has no email %s", r.RecipientID, kind)
	}
	due, ok := e.NextSendAt()
	switch {
	case !ok:
		return gifting.Errorf(gifting.CodeConflict, "email %s of recipient %q is not waiting to be sent", kind, r.RecipientID)
	case due.After(now) && e.ClaimedAt != nil:
		return gifting.Errorf(gifting.CodeConflict, "email %s of recipient %q is claimed by another sender until %s", kind, r.RecipientID, gifting.FormatTime(due))
	case due.After(now):
		return gifting.Errorf(gifting.CodeConflict, "email %s of recipient %q is not due until %s", kind, r.RecipientID, gifting.FormatTime(due))
	}
	if e.ClaimRetryable(now) {
		// The holder's attempt ended with nothing recorded: it failed, or
		// went out and was never recorded (the duplicate window).
		e.Attempts++
		if e.Attempts >= MaxEmailAttempts {
			e.ClaimedAt, e.Failure, r.UpdatedAt = nil, EmailAttemptsExhausted, now
			return ErrEmailGivenUp
		}
	}
	at := now
	e.ClaimedAt = &at
	return nil
}

// activateShipped makes the shipped email part of the recipient's
// schedule when its campaign mails it (its template has any email), so
// the service's own words go out when the template has none for it. A
// recipient whose emails were stopped (StopEmails) is not mailed again.
func (r *Recipient) activateShipped() {
	e := &r.Emails.Shipped
	if e.Active || e.Failure != "" {
		return
	}
	for _, k := range gifting.EmailKinds {
		if r.Emails.Kind(k).Active {
			e.Active = true
			return
		}
	}
}

// StopEmails records failure on every email of the recipient still to be
// sent (and on the sent email kind, when not ""), so none goes out again:
// a bounce, a complaint, an unsubscribe. The shipped email, activated
// only when the gift ships, counts as still to be sent until it went out.
func (r *Recipient) StopEmails(kind, failure string, now time.Time) {
	for _, k := range gifting.EmailKinds {
		e := r.Emails.Kind(k)
		if k == kind || ((e.Active || k == "shipped") && !e.Sent && e.Failure == "") {
			e.Failure = failure
		}
	}
	r.UpdatedAt = now
}

// MarkEmailSent records that the mail provider accepted the email kind at
// now as messageID. The invitation of a pending recipient (one sent by the
// scheduler) moves it to invite_sent; MarkEmailSent reports the status it
// moved from, "" when it stayed.
func (r *Recipient) MarkEmailSent(kind, messageID string, now time.Time) (from gifting.RecipientStatus) {
	e := r.Emails.Kind(kind)
	at := now
	e.Sent, e.SentAt, e.MessageID, e.RetryAt = true, &at, messageID, nil
	if e.ClaimedAt == nil {
		e.ClaimedAt = &at
	}
	r.keepReminderDistance(kind, now)
	r.UpdatedAt = now
	if kind == "addressConfirmation" && r.Status == gifting.RecipientPending {
		r.Status = gifting.RecipientInviteSent
		r.restartExpiry(now)
		return gifting.RecipientPending
	}
	return ""
}

// inviteChain are the emails that follow one another from the moment a
// recipient is added: the invitation, then its reminders.
var inviteChain = []string{"addressConfirmation", "reminder1", "reminder2"}

// keepReminderDistance puts off the emails of inviteChain after kind,
// which goes out at now, by as long as kind went out after its scheduled
// time: an invitation held while its campaign was a draft or paused (or
// retried) is followed by its reminders as long after it as the template
// says, not at once. An email not in the chain changes nothing.
func (r *Recipient) keepReminderDistance(kind string, now time.Time) {
	i := slices.Index(inviteChain, kind)
	if i < 0 {
		return
	}
	at, err := time.Parse(time.RFC3339Nano, r.Emails.Kind(kind).ScheduledTime)
	if err != nil || !now.After(at) {
		return
	}
	late := now.Sub(at)
	for _, k := range inviteChain[i+1:] {
		e := r.Emails.Kind(k)
		if !e.waiting() {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, e.ScheduledTime); err == nil {
			e.ScheduledTime = gifting.FormatTime(t.Add(late))
		}
	}
}

// MarkEmailFailed records a failed send of the email kind, claimed at
// claimedAt, at now and releases its claim: failure is the reason it will
// never go out, or "" for a failure a later send may get past, which is
// retried after EmailRetryAfter until MaxEmailAttempts. It changes nothing
// and reports false when the claim is no longer the sender's (another
// sender took it over after its lease) or the email was sent meanwhile.
func (r *Recipient) MarkEmailFailed(kind, failure string, claimedAt, now time.Time) bool {
	e := r.Emails.Kind(kind)
	if e.Sent || e.ClaimedAt == nil || !e.ClaimedAt.Equal(claimedAt) {
		return false
	}
	e.ClaimedAt = nil
	e.Attempts++
	switch {
	case failure != "":
		e.Failure = failure
	case e.Attempts >= MaxEmailAttempts:
		e.Failure = EmailAttemptsExhausted
	default:
		at := now.Add(EmailRetryAfter(e.Attempts))
		e.RetryAt = &at
	}
	r.UpdatedAt = now
	return true
}
