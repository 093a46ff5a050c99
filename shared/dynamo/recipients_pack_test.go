package dynamo

import (
	"reflect"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// TestRecipientItemRoundTrip: a recipient with every field set reads back
// from its item exactly as it was written, with its emails (rendered back
// from its set when it has one) and the attributes kept beside the record.
func TestRecipientItemRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 30, 0, 120_000_000, time.UTC)
	later := at.Add(36*time.Hour + 7*time.Millisecond)
	emails := map[string]gifting.EmailTemplate{
		"addressConfirmation": {Subject: "Hi {{firstName}}", HTML: `<p>Dear {{firstName}} — <a href="{{landingPageUrl}}">here</a></p>`},
		"postDelivery":        {Subject: "Arrived?", HTML: `<a href="{{claimPageUrl}}">tell us</a>`, DelayHours: 5},
	}
	r := recipient.New(recipient.NewSpec{
		RecipientID: "0EVCG5MAF4AVQ1PPSHREW1C22D", OrgID: "acme", CampaignID: "01M85EW4PSF2N90HEYVD4B5XMG", CampaignName: "Été <spécial> & co",
		Contact: gifting.Contact{ContactID: "t5ymijtdjcstnrrqnxwgp2u4bt", FirstName: "Zoë \"Z\"", LastName: "Ñúñez", MailID: "zoe@example.com",
			CompanyName: "ACME 株式会社", JobTitle: "CTO", PhoneNumber: "+1 555 0100", LinkedinURL: "https://linkedin.com/in/z",
			Address: gifting.Address{Line1: "1 Main St", City: "Springfield", Country: "US"}},
		SourceType: "csv", SourceID: "list-1", LandingPageID: "aaaaaaaaaaaaaaaaaaaabbbbbb", ClaimPageID: "aaaaaaaaaaaaaaaaaaaacccccc",
		PublicBaseURL: "https://gifts.test", Emails: emails, Gift: &gifting.Gift{GiftID: "g1", Name: "Hamper", Price: 42.5, Currency: "EUR", ImageURLs: []string{"https://img.test/h.png"}},
		Credits: 43, Now: at, ClaimExpiresInDays: 30,
	})
	r.Status, r.UpdatedAt, r.ClaimedAt, r.ViewedAt = gifting.RecipientShipped, later, &later, &at
	r.Address = &recipient.ShippingAddress{Line1: "2 Side St", City: "Lyon", Country: "FR", PhoneNumber: "+33 1"}
	r.Feedback = recipient.Feedback{Rating: &recipient.Rating{Value: "like", SubmittedAt: later},
		Message: []recipient.FeedbackMessage{{Type: "text", SubmittedAt: later, Text: "Merci ✓"}}}
	r.ShipmentInfo = map[string]any{"carrier": "DHL", "weightKg": 1.5, "tags": []any{"fragile"}}
	r.AssignedUsers = []recipient.AssignedUser{{UserID: "u1", UserName: "Ann"}}
	r.SelectedGift.TrackingLink = "https://track.test/1"
	r.Emails.AddressConfirmation.Sent, r.Emails.AddressConfirmation.SentAt, r.Emails.AddressConfirmation.MessageID = true, &at, "m-1"
	r.CreditsCharged = 40
	r.Normalize()

	s := &Store{sets: newEmailSetCache()}
	for _, tt := range []struct {
		name string
		sr   recipient.Stored
	}{
		{"with an email set", recipient.Stored{Recipient: r, Version: 7, EmailSet: "set1", Slice: "launch:abc"}},
		{"without (emails stored)", recipient.Stored{Recipient: r, Version: 7, Delays: map[string]int{"postDelivery": 5}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s.sets.Add(emailSetCacheKey("acme", "set1"), emails)
			it, err := s.recipientItem("acme", tt.sr)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeRecipient(it)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.withEmails(t.Context(), &got); err != nil {
				t.Fatal(err)
			}
			want := tt.sr
			if want.EmailSet != "" {
				want.Delays = recipient.EventDelays(emails)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}
