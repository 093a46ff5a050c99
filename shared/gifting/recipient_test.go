package gifting

import (
	"strings"
	"testing"
	"time"
)

func testRecipient(t *testing.T, first string) Recipient {
	t.Helper()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return NewRecipient(NewRecipientSpec{
		RecipientID: "r1", OrgID: "acme", CampaignID: "c1", CampaignName: "Spring & Co",
		Contact:    Contact{ContactID: "k1", FirstName: first, LastName: "Doe", MailID: "jane@example.com"},
		SourceType: "api", LandingPageID: "lp", ClaimPageID: "cp", PublicBaseURL: "https://gifts.test",
		Emails: map[string]EmailTemplate{
			"addressConfirmation": {Subject: "{{firstName}}, a gift", HTML: `<p>Hi {{firstName}} from {{campaignName}}: <a href="{{landingPageUrl}}">go</a></p>`},
			"reminder1":           {Subject: "Reminder", HTML: "<p>{{claimPageUrl}}</p>", DelayHours: 72},
			"postDelivery":        {Subject: "Arrived?", HTML: "<p>x</p>", DelayHours: 2},
		},
		Credits: 40, Now: now,
	})
}

func TestNewRecipientSchedule(t *testing.T) {
	r := testRecipient(t, "Jane")
	e := r.Emails
	if !e.AddressConfirmation.Active || e.AddressConfirmation.ScheduledTime != "2026-03-01T12:00:00.000Z" {
		t.Errorf("addressConfirmation = %+v, want active at once", e.AddressConfirmation)
	}
	if e.Reminder1.ScheduledTime != "2026-03-04T12:00:00.000Z" {
		t.Errorf("reminder1 at %q, want 72 hours later", e.Reminder1.ScheduledTime)
	}
	if e.Reminder2.Active || e.PostAcknowledgement.Active {
		t.Error("emails the template lacks are active")
	}
	if !e.PostDelivery.Active || e.PostDelivery.ScheduledTime != "" {
		t.Errorf("postDelivery = %+v, want active and waiting for delivery", e.PostDelivery)
	}
	want := `<p>Hi Jane from Spring &amp; Co: <a href="https://gifts.test/gift/lp">go</a></p>`
	if e.AddressConfirmation.HTML != want {
		t.Errorf("html = %s, want %s", e.AddressConfirmation.HTML, want)
	}
	if r.URLs.ClaimPage != "https://gifts.test/claim/cp" || r.Status != RecipientPending {
		t.Errorf("urls %+v status %s", r.URLs, r.Status)
	}
}

func TestRenderEscapesContactValues(t *testing.T) {
	r := testRecipient(t, "<script>alert(1)</script>\r\nBcc: x@evil.test")
	if strings.Contains(r.Emails.AddressConfirmation.HTML, "<script>") {
		t.Errorf("html holds the raw name: %s", r.Emails.AddressConfirmation.HTML)
	}
	if strings.ContainsAny(r.Emails.AddressConfirmation.Subject, "\r\n") {
		t.Errorf("subject holds a line break: %q", r.Emails.AddressConfirmation.Subject)
	}
}

func TestAdvance(t *testing.T) {
	now := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		from, to RecipientStatus
		ok       bool
	}{
		{"next state", RecipientInviteSent, RecipientAddressConfirmed, true},
		{"skip states", RecipientShipped, RecipientDelivered, true},
		{"backwards", RecipientDelivered, RecipientShipped, false},
		{"same state", RecipientShipped, RecipientShipped, false},
		{"unknown state", RecipientShipped, "lost", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := testRecipient(t, "Jane")
			r.Status = tt.from
			err := r.Advance(tt.to, now, map[string]int{"postDelivery": 2})
			if (err == nil) != tt.ok {
				t.Fatalf("Advance(%s → %s) = %v, want ok %v", tt.from, tt.to, err, tt.ok)
			}
			if !tt.ok && ErrorCode(err) != CodeConflict {
				t.Errorf("code = %s, want CONFLICT", ErrorCode(err))
			}
		})
	}
	t.Run("delivery schedules postDelivery and stops reminders", func(t *testing.T) {
		r := testRecipient(t, "Jane")
		if err := r.Advance(RecipientDelivered, now, map[string]int{"postDelivery": 2}); err != nil {
			t.Fatal(err)
		}
		if r.Emails.PostDelivery.ScheduledTime != "2026-03-02T10:00:00.000Z" || r.Emails.Reminder1.Active {
			t.Errorf("postDelivery %+v reminder1 %+v", r.Emails.PostDelivery, r.Emails.Reminder1)
		}
	})
}

func TestAddFeedback(t *testing.T) {
	now := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	r := testRecipient(t, "Jane")
	if err := r.AddFeedback("like", nil, now); ErrorCode(err) != CodeConflict {
		t.Fatalf("feedback on a pending recipient: %v, want CONFLICT", err)
	}
	if from := r.MarkEmailSent("addressConfirmation", "m-1", now); from != RecipientPending {
		t.Fatalf("invitation sent from %s, want pending", from)
	}
	if err := r.AddFeedback("like", &FeedbackMessage{Type: "text", Text: "Thanks!"}, now); err != nil {
		t.Fatal(err)
	}
	if !r.Feedback.Has() || r.Feedback.Rating.Value != "like" || len(r.Feedback.Message) != 1 {
		t.Errorf("feedback = %+v", r.Feedback)
	}
}

func TestExpiredIsAnEnd(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, to := range RecipientStatuses {
		t.Run("to "+string(to), func(t *testing.T) {
			r := Recipient{Status: RecipientExpired}
			if err := r.Advance(to, now, nil); ErrorCode(err) != CodeConflict {
				t.Errorf("expired → %s: %v, want CONFLICT", to, err)
			}
			if err := r.MoveByFulfilment(to, now, nil); err == nil {
				t.Errorf("fulfilment moved an expired recipient to %s", to)
			}
			if r.Status != RecipientExpired {
				t.Errorf("status %s, want still expired", r.Status)
			}
		})
	}
	t.Run("nothing moves into expired but the expiry", func(t *testing.T) {
		r := Recipient{Status: RecipientInviteSent}
		if err := r.Advance(RecipientExpired, now, nil); ErrorCode(err) != CodeConflict {
			t.Errorf("invite_sent → expired by a move: %v, want CONFLICT", err)
		}
	})
	t.Run("expire", func(t *testing.T) {
		for _, tc := range []struct {
			name   string
			status RecipientStatus
			ok     bool
		}{
			{"pending", RecipientPending, true},
			{"invite_sent", RecipientInviteSent, true},
			{"address_confirmed", RecipientAddressConfirmed, false},
			{"delivered", RecipientDelivered, false},
			{"expired", RecipientExpired, false},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := Recipient{Status: tc.status, CreditsCharged: 40}
				r.Emails.Reminder1 = EmailSchedule{Active: true, ScheduledTime: FormatTime(now.Add(time.Hour))}
				from, refund, err := r.Expire(now)
				if !tc.ok {
					if ErrorCode(err) != CodeConflict || refund != 0 || r.Status != tc.status {
						t.Errorf("expire %s: %v, refund %d, status %s; want CONFLICT, nothing changed", tc.status, err, refund, r.Status)
					}
					return
				}
				if err != nil || from != tc.status || refund != 40 || r.Status != RecipientExpired || r.CreditsCharged != 0 {
					t.Errorf("expire %s: %v, from %s, refund %d, status %s, charged %d", tc.status, err, from, refund, r.Status, r.CreditsCharged)
				}
				if _, _, waiting := r.NextEmail(); waiting {
					t.Error("an expired recipient still has an email waiting")
				}
				if err := r.Claim(Gift{GiftID: "g"}, ShippingAddress{}, now); err != ErrGiftExpired {
					t.Errorf("claim of an expired recipient: %v, want ErrGiftExpired", err)
				}
			})
		}
	})
}

func TestClaimExpiryIsADueTime(t *testing.T) {
	added := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := testRecipient(t, "Jane")
	exp := added.AddDate(0, 0, 30)
	r.ClaimExpiresAt = &exp
	// Every email sent: only the expiry is left to be due.
	for _, k := range EmailKinds {
		r.Emails.Kind(k).Sent = true
	}
	if at, ok := r.NextDue(); !ok || !at.Equal(exp) {
		t.Errorf("NextDue = %v, %v; want the expiry %v", at, ok, exp)
	}
	// The invitation going out ten days later starts the period again.
	r.Status = RecipientPending
	r.MarkEmailSent("addressConfirmation", "m1", added.AddDate(0, 0, 10))
	if want := added.AddDate(0, 0, 40); r.ClaimExpiresAt == nil || !r.ClaimExpiresAt.Equal(want) {
		t.Errorf("expiry after a late invitation = %v, want %v", r.ClaimExpiresAt, want)
	}
	if r.ExpiryDue(added.AddDate(0, 0, 39)) || !r.ExpiryDue(added.AddDate(0, 0, 40)) {
		t.Error("ExpiryDue does not turn at the expiry")
	}
	// A claimed recipient has no expiry to be due for.
	claimed := time.Now()
	r.ClaimedAt = &claimed
	if _, ok := r.NextDue(); ok || r.ExpiryDue(added.AddDate(1, 0, 0)) {
		t.Error("a claimed recipient is still due for its expiry")
	}
}

// TestRenderPlaceholders: every known placeholder is filled wherever it
// stands; anything else, unknown names and stray braces included, is left
// as the template's author wrote it.
func TestRenderPlaceholders(t *testing.T) {
	r := Recipient{ContactDetails: ContactDetails{FirstName: "Ann", LastName: ""}, CampaignName: "Spring & Co",
		URLs: RecipientURLs{LandingPage: "https://gifts.test/gift/lp", ClaimPage: "https://gifts.test/claim/cp"}}
	for _, tt := range []struct{ name, text, want string }{
		{"plain text", "Hello there", "Hello there"},
		{"one", "Hi {{firstName}}!", "Hi Ann!"},
		{"adjacent", "{{firstName}}{{campaignName}}", "AnnSpring &amp; Co"},
		{"empty value", "{{lastName}}", ""},
		{"empty value, then text", "{{lastName}}x{{lastName}}", "x"},
		{"unknown name", "{{nickname}} {{firstName}}", "{{nickname}} Ann"},
		{"stray braces before one", "{{ {{firstName}}", "{{ Ann"},
		{"unterminated", "Hi {{firstName", "Hi {{firstName"},
		{"closing braces only", "a }} b", "a }} b"},
		{"urls", `<a href="{{landingPageUrl}}">x</a><a href="{{claimPageUrl}}">y</a>`,
			`<a href="https://gifts.test/gift/lp">x</a><a href="https://gifts.test/claim/cp">y</a>`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rr := r
			rr.RenderEmails(map[string]EmailTemplate{"addressConfirmation": {HTML: tt.text}})
			if got := rr.Emails.AddressConfirmation.HTML; got != tt.want {
				t.Errorf("%q rendered as %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}
