package erasure_test

import (
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/erasure"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

func scrubber() *erasure.Scrubber {
	var p erasure.Person
	p.Add("Ada.Lovelace@Example.com", "Ada", "Lovelace", "+44 20 7946 0018", "12 St James's Square", "Al")
	return erasure.NewScrubber(p)
}

func TestScrubReplacesThePersonOnly(t *testing.T) {
	s := scrubber()
	for _, tt := range []struct{ in, want string }{
		{"ada.lovelace@example.com", erasure.ErasedEmail},
		{"Write to ADA.LOVELACE@EXAMPLE.COM today", "Write to " + erasure.ErasedEmail + " today"},
		{"Ada Lovelace", "erased erased"},
		{"Hi Ada, your gift ships to 12 St James's Square.", "Hi erased, your gift ships to erased."},
		// An email's HTML holds the value as html/template escaped it.
		{"<p>Hi Ada, your gift ships to 12 St James&#39;s Square.</p>", "<p>Hi erased, your gift ships to erased.</p>"},
		{"+44 20 7946 0018", erasure.Erased},
		// Whole words only: a name inside an id or another word stays.
		{"01JH8ZADA4Q1V6W3K2M9T5R7Y0", "01JH8ZADA4Q1V6W3K2M9T5R7Y0"},
		{"Adams and Adalovelace", "Adams and Adalovelace"},
		// A value under three characters is replaced only when it is the
		// whole text.
		{"Al", erasure.Erased},
		{"Al is also here", "Al is also here"},
		{"nothing personal", "nothing personal"},
	} {
		got, changed := s.String(tt.in)
		if got != tt.want || changed != (tt.in != tt.want) {
			t.Errorf("String(%q) = %q, %v; want %q", tt.in, got, changed, tt.want)
		}
	}
}

func TestScrubJSONKeepsItValid(t *testing.T) {
	s := scrubber()
	in := `{"type":"contact.updated","amount":12345678901234567,"data":{"email":"ada.lovelace@example.com",` +
		`"name":"Ada \"Countess\" Lovelace","tags":["Lovelace","vip"],"ada.lovelace@example.com":true}}`
	got, changed := s.String(in)
	if !changed {
		t.Fatal("nothing replaced")
	}
	for _, gone := range []string{"ada", "lovelace"} {
		if strings.Contains(strings.ToLower(got), gone) {
			t.Errorf("%q still holds %q", got, gone)
		}
	}
	for _, kept := range []string{`"amount":12345678901234567`, `"vip"`, `"type":"contact.updated"`, `"erased \"Countess\" erased"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q lost %s", got, kept)
		}
	}
}

func TestRecipientRule(t *testing.T) {
	s := scrubber()
	r := recipient.Recipient{RecipientID: "R1", CampaignID: "C1", CreditsCharged: 35, Status: gifting.RecipientDelivered,
		ContactDetails: recipient.ContactDetails{ContactID: "K1", FirstName: "Ada", LastName: "Lovelace",
			Email: "ada.lovelace@example.com", Phone: "+44", AddressLine1: "12 St James's Square", Country: "GB", Company: "Analytical"},
		Address:         &recipient.ShippingAddress{Line1: "12 St James's Square", City: "London", Zip: "SW1Y 4LB", Country: "GB", PhoneNumber: "+44"},
		Feedback:        recipient.Feedback{Rating: &recipient.Rating{Value: "like"}, Message: []recipient.FeedbackMessage{{Type: "text", Text: "Thanks, Ada"}}},
		Personalization: recipient.Personalization{GiftCard: map[string]any{"message": "Dear Ada Lovelace"}},
	}
	r.Emails.AddressConfirmation = recipient.EmailSchedule{Active: true, Sent: true, MessageID: "m1"}
	r.Emails.Reminder1 = recipient.EmailSchedule{Active: true, ScheduledTime: "2026-03-01T00:00:00.000Z"}
	got := erasure.Recipient(r, s)
	want := recipient.ContactDetails{ContactID: "K1", FirstName: erasure.Erased, LastName: erasure.Erased, Email: erasure.ErasedEmail, Country: "GB"}
	if got.ContactDetails != want {
		t.Errorf("contact details %+v, want %+v", got.ContactDetails, want)
	}
	if a := *got.Address; a.Line1 != erasure.Erased || a.PhoneNumber != "" || a.Zip != erasure.Erased || a.Country != "GB" {
		t.Errorf("address %+v", a)
	}
	if got.Feedback.Message[0].Text != erasure.Erased || got.Feedback.Rating.Value != "like" {
		t.Errorf("feedback %+v", got.Feedback)
	}
	if got.Personalization.GiftCard["message"] != "Dear erased erased" {
		t.Errorf("gift card %v", got.Personalization.GiftCard)
	}
	if got.Emails.Reminder1.Active || !got.Emails.AddressConfirmation.Sent {
		t.Errorf("emails %+v: the unsent one must stop, the sent one stay as it was", got.Emails)
	}
	if got.RecipientID != "R1" || got.CreditsCharged != 35 || got.Status != gifting.RecipientDelivered {
		t.Errorf("ids, credits or status changed: %+v", got)
	}
	if ids := erasure.MessageIDs(r); len(ids) != 1 || ids[0] != "m1" {
		t.Errorf("message ids %v", ids)
	}
}

// TestScrubLeavesOthersAlone: a name or a town may be someone else's too,
// so they are replaced only in texts about the person (holding their
// address or an id of theirs), and in a list only in its elements about
// them; the person's address is replaced wherever it is.
func TestScrubLeavesOthersAlone(t *testing.T) {
	var p erasure.Person
	p.Add("ada.lovelace@example.com", "Ada", "Springfield")
	p.IDs = []string{"K1", "R1"}
	s := erasure.NewScrubber(p)
	msgs := `[{"contactId":"K1","name":"Ada","city":"Springfield"},{"contactId":"K2","name":"Ada","city":"Springfield"}]`
	got, _ := s.For(msgs).String(msgs)
	want := `[{"city":"erased","contactId":"K1","name":"erased"},{"city":"Springfield","contactId":"K2","name":"Ada"}]`
	if got != want {
		t.Errorf("messages scrubbed to %s, want %s", got, want)
	}
	for _, tt := range []struct{ in, want string }{
		{"Ada of Springfield", "Ada of Springfield"},
		{"Ada of Springfield, recipient R1", "erased of erased, recipient R1"},
		{"Ada of Springfield wrote from ada.lovelace@example.com", "erased of erased wrote from " + erasure.ErasedEmail},
		{"cc: ada.lovelace@example.com", "cc: " + erasure.ErasedEmail},
	} {
		if got, _ := s.For(tt.in).String(tt.in); got != tt.want {
			t.Errorf("%q scrubbed to %q, want %q", tt.in, got, tt.want)
		}
	}
}
