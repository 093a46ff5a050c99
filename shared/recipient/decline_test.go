package recipient_test

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

func TestDecideDecline(t *testing.T) {
	now := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	claimedAt := now.Add(-time.Hour)
	for name, tc := range map[string]struct {
		r      recipient.Recipient
		ok     bool
		code   gifting.Code
		refund int64
	}{
		"pending":          {r: recipient.Recipient{Status: gifting.RecipientPending, CreditsCharged: 40}, ok: true, refund: 40},
		"invited":          {r: recipient.Recipient{Status: gifting.RecipientInviteSent, CreditsCharged: 25}, ok: true, refund: 25},
		"already declined": {r: recipient.Recipient{Status: gifting.RecipientDeclined}},
		"claimed":          {r: recipient.Recipient{Status: gifting.RecipientProcessing, ClaimedAt: &claimedAt, CreditsCharged: 10}, code: gifting.CodeConflict},
		"expired":          {r: recipient.Recipient{Status: gifting.RecipientExpired}, code: gifting.CodeGone},
	} {
		t.Run(name, func(t *testing.T) {
			tc.r.Emails.Reminder1 = recipient.EmailSchedule{Active: true, ScheduledTime: gifting.FormatTime(now.Add(time.Hour))}
			p, ok, err := recipient.DecideDecline("org", recipient.Stored{Recipient: tc.r, Version: 3}, now)
			if ok != tc.ok || (err != nil || tc.code != "") && gifting.ErrorCode(err) != tc.code {
				t.Fatalf("ok %v, error %v; want ok %v, code %q", ok, err, tc.ok, tc.code)
			}
			if !ok {
				return
			}
			got := p.Recipient.Recipient
			if got.Status != gifting.RecipientDeclined || got.CreditsCharged != 0 || p.Refund != tc.refund || p.From != tc.r.Status ||
				p.Before != 3 || p.RefundChange().Delta != tc.refund {
				t.Errorf("plan %+v", p)
			}
			if got.Emails.Reminder1.Failure != recipient.EmailDeclined {
				t.Errorf("reminder after the decline: %+v, want stopped", got.Emails.Reminder1)
			}
			if len(p.More) != 1 || p.More[0].Type != gifting.ChangeRecipientDeclined || p.Message.Type != gifting.ChangeRecipientStatus {
				t.Errorf("messages %v + %v; want a status change and recipient.declined", p.Message, p.More)
			}
			if err := got.Advance(gifting.RecipientAddressConfirmed, now, nil); gifting.ErrorCode(err) != gifting.CodeConflict {
				t.Errorf("a declined recipient moved on: %v", err)
			}
		})
	}
}
