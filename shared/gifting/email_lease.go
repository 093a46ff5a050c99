package gifting

import "time"

// An email goes out at least once. A sender first claims it (ClaimEmail,
// or ClaimInvitation for a recipient written to be invited at once): the
// claim is a lease of EmailLease on the email, not a promise that it went
// out. The sender then sends it and records the provider's acceptance
// (MarkEmailSent) or the failure (MarkEmailFailed). A sender that dies in
// between, or runs out of time, leaves the claim to run out: once the lease
// is over the email is due again (NextSendAt), the scheduler's tick finds
// its recipient through the due index and claims it anew (ClaimRetryable).
//
// SES's SendEmail takes no idempotency token, so a sender that dies after
// SES accepted a message and before its acceptance is recorded makes the
// email go out twice once the lease is over: that is the only window of a
// duplicate, as short as one SES call's answer and one write. A duplicate
// invitation is better than none. A holder never starts a send it could
// not record before its lease ends (HolderMaySend), so a slow sender does
// not race the retry of its own claim.

// EmailLease is how long a claim holds an email for its sender: as short as
// is safe, since it is how long a lost email waits. It is longer than the
// worker function's timeout (150 s in template.yaml) and than any API
// function's (29 s), so a sender AWS stopped is dead before its claim can
// be taken over; and a live sender starts no send in its last
// EmailSendMargin (HolderMaySend), which outlasts one send and its record.
const EmailLease = 3 * time.Minute

// EmailSendMargin is the time a holder keeps in hand: it starts a send only
// while at least this much of its lease is left. One send is bounded at 30
// s (the service's mail timeout: the mailer's five attempts with about 3 s
// of backoff take far less) and its record at a few.
const EmailSendMargin = time.Minute

// NextSendAt returns when e next needs a sender: its scheduled time (or its
// retry time, when later) while it waits, the end of its lease while it is
// claimed and not recorded as sent; ok is false when it needs none
// (inactive, waiting for an event, sent or failed).
func (e EmailSchedule) NextSendAt() (at time.Time, ok bool) {
	switch {
	case !e.Active || e.ScheduledTime == "" || e.Sent || e.Failure != "":
		return time.Time{}, false
	case e.ClaimedAt != nil:
		return e.ClaimedAt.Add(EmailLease), true
	}
	return e.dueAt(), true
}

// ClaimRetryable reports whether e was claimed by a sender that never
// recorded it as sent or failed, and that sender's lease is over at now:
// the claim is void and the email may be claimed again.
func (e EmailSchedule) ClaimRetryable(now time.Time) bool {
	return e.Active && !e.Sent && e.Failure == "" && e.ClaimedAt != nil && !now.Before(e.ClaimedAt.Add(EmailLease))
}

// HolderMaySend reports whether the sender that claimed e at claimedAt may
// start sending it at now: the claim is still its own (no other sender
// claimed it since), the email is neither sent nor failed, and at least
// EmailSendMargin of the lease is left. A holder that may not send leaves
// the email to the retry after its lease.
func (e EmailSchedule) HolderMaySend(claimedAt, now time.Time) bool {
	return e.Active && !e.Sent && e.Failure == "" && e.ClaimedAt != nil && e.ClaimedAt.Equal(claimedAt) &&
		!now.Add(EmailSendMargin).After(claimedAt.Add(EmailLease))
}

// ClaimInvitation claims the invitation at now for the writer of a new
// recipient to send at once. The recipient stays pending: it moves to
// invite_sent only once the mail provider accepted the invitation
// (MarkEmailSent).
func (r *Recipient) ClaimInvitation(now time.Time) {
	at := now
	r.Emails.AddressConfirmation.ClaimedAt = &at
	r.UpdatedAt = now
}
