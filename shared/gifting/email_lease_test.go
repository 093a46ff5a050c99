package gifting

import (
	"testing"
	"time"
)

func TestEmailLeaseRules(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) *time.Time { at := now.Add(-d); return &at }
	scheduled := FormatTime(now.Add(-time.Hour))
	waiting := EmailSchedule{Active: true, ScheduledTime: scheduled}
	claimed := func(d time.Duration) EmailSchedule { e := waiting; e.ClaimedAt = ago(d); return e }
	for _, tt := range []struct {
		name      string
		e         EmailSchedule
		next      time.Time // zero: needs no sender
		retryable bool      // ClaimRetryable at now
		holderMay bool      // HolderMaySend at now for the claim's own time
	}{
		{"waiting, due", waiting, now.Add(-time.Hour), false, false},
		{"waiting for an event", EmailSchedule{Active: true}, time.Time{}, false, false},
		{"inactive", EmailSchedule{ScheduledTime: scheduled}, time.Time{}, false, false},
		{"just claimed: the holder sends", claimed(0), now.Add(EmailLease), false, true},
		{"claimed, margin left", claimed(EmailLease - EmailSendMargin), now.Add(EmailSendMargin), false, true},
		{"claimed, less than the margin left: the holder stops", claimed(EmailLease - EmailSendMargin + time.Second), now.Add(EmailSendMargin - time.Second), false, false},
		{"claimed, lease over: retried", claimed(EmailLease), now, true, false},
		{"claimed long ago and never recorded: retried", claimed(48 * time.Hour), now.Add(-48*time.Hour + EmailLease), true, false},
		{"sent", func() EmailSchedule { e := claimed(EmailLease * 2); e.Sent = true; return e }(), time.Time{}, false, false},
		{"failed", func() EmailSchedule { e := claimed(EmailLease * 2); e.Failure = EmailSuppressed; return e }(), time.Time{}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			at, ok := tt.e.NextSendAt()
			if ok != !tt.next.IsZero() || !at.Equal(tt.next) {
				t.Errorf("NextSendAt = %v, %v; want %v", at, ok, tt.next)
			}
			if got := tt.e.ClaimRetryable(now); got != tt.retryable {
				t.Errorf("ClaimRetryable = %v, want %v", got, tt.retryable)
			}
			if tt.e.ClaimedAt != nil {
				if got := tt.e.HolderMaySend(*tt.e.ClaimedAt, now); got != tt.holderMay {
					t.Errorf("HolderMaySend = %v, want %v", got, tt.holderMay)
				}
				if tt.e.HolderMaySend(tt.e.ClaimedAt.Add(time.Millisecond), now) {
					t.Error("HolderMaySend true for another sender's claim")
				}
			}
		})
	}
}

// TestClaimEmailTakesOverALapsedLease: a claim whose sender died is taken
// over after its lease and counts as a failed attempt; the fifth lost
// attempt fails the email for good, which storage records.
func TestClaimEmailTakesOverALapsedLease(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	r := Recipient{RecipientID: "r1", Status: RecipientPending}
	r.Emails.AddressConfirmation = EmailSchedule{Active: true, ScheduledTime: FormatTime(now)}
	r.ClaimInvitation(now)
	if r.Status != RecipientPending {
		t.Fatalf("status %s after the invitation was claimed, want pending until it is sent", r.Status)
	}
	if err := r.ClaimEmail("addressConfirmation", now.Add(EmailLease-time.Second)); ErrorCode(err) != CodeConflict {
		t.Fatalf("claim within the holder's lease: %v, want CONFLICT", err)
	}
	if kinds := r.DueEmails(now.Add(EmailLease)); len(kinds) != 1 || kinds[0] != "addressConfirmation" {
		t.Fatalf("due at the lease's end: %v, want the invitation", kinds)
	}
	at := now
	for attempt := 1; attempt < MaxEmailAttempts; attempt++ {
		at = at.Add(EmailLease)
		if err := r.ClaimEmail("addressConfirmation", at); err != nil {
			t.Fatalf("takeover %d: %v", attempt, err)
		}
		if e := r.Emails.AddressConfirmation; e.Attempts != attempt || !e.ClaimedAt.Equal(at) {
			t.Fatalf("takeover %d: attempts %d, claimed at %v", attempt, e.Attempts, e.ClaimedAt)
		}
	}
	at = at.Add(EmailLease)
	if err := r.ClaimEmail("addressConfirmation", at); err != ErrEmailGivenUp {
		t.Fatalf("the last takeover: %v, want ErrEmailGivenUp", err)
	}
	if e := r.Emails.AddressConfirmation; e.Failure != EmailAttemptsExhausted || e.ClaimedAt != nil {
		t.Errorf("invitation %+v; want failed (attempts exhausted), unclaimed", e)
	}
	if _, _, ok := r.NextEmail(); ok {
		t.Error("a failed invitation still needs a sender")
	}
}

// TestMarkEmailFailedOnlyByItsHolder: a sender whose claim was taken over
// after its lease, or whose email went out meanwhile, records nothing.
func TestMarkEmailFailedOnlyByItsHolder(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	r := Recipient{RecipientID: "r1", Status: RecipientPending}
	r.Emails.AddressConfirmation = EmailSchedule{Active: true, ScheduledTime: FormatTime(now)}
	r.ClaimInvitation(now)
	later := now.Add(EmailLease)
	if err := r.ClaimEmail("addressConfirmation", later); err != nil {
		t.Fatal(err)
	}
	if r.MarkEmailFailed("addressConfirmation", "", now, later) {
		t.Error("the first sender released the second one's claim")
	}
	if !r.MarkEmailFailed("addressConfirmation", "", later, later) {
		t.Fatal("the holder could not record its failure")
	}
	if e := r.Emails.AddressConfirmation; e.ClaimedAt != nil || e.RetryAt == nil || e.Attempts != 2 {
		t.Errorf("invitation %+v; want released, retried later, two attempts", e)
	}
}
