package wire_test

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wire"
)

// TestRecipient: a recipient, as the API answers it and the recipient.*
// messages carry it, is byte for byte what it was when the domain's type
// carried the JSON (the expected bodies were written by that type): every
// field in the API's order, the sending's record of an email only when
// set, an empty collection as {} or [] and a missing one as null.
func TestRecipient(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 10, 5, 0, 0, time.UTC)
	later := at.Add(90 * time.Minute)
	full := recipient.Recipient{
		RecipientID: "R1", CampaignID: "C1", OrganizationID: "acme", LandingPageID: "lp", ClaimPageID: "cp",
		ContactDetails: recipient.ContactDetails{ContactID: "K1", FirstName: "Jane", LastName: "Doe", Email: "jane@example.com",
			Company: "Acme & Co", City: "Paris"},
		SourceType: "api", Status: gifting.RecipientAddressConfirmed, CreatedAt: at, UpdatedAt: later, CampaignName: "Spring <thanks>",
		GiftDetails: recipient.GiftDetails{GiftID: "g1", Name: "Coffee", Price: 35.5, Currency: "USD", SelectedAt: &later},
		SelectedGift: recipient.SelectedGift{GiftID: "g1", Name: "Coffee", Price: 35.5, Currency: "USD", Description: "Beans",
			ImageURL: "https://img.test/c.png", SelectedAt: &later},
		URLs:            recipient.URLs{LandingPage: "https://gifts.test/gift/lp", ClaimPage: "https://gifts.test/claim/cp"},
		Personalization: recipient.Personalization{GiftCard: map[string]any{}},
		Emails: recipient.Emails{
			AddressConfirmation: recipient.EmailSchedule{Active: true, ScheduledTime: "2026-11-23T10:05:00.000Z", Sent: true, SentAt: &at,
				HTML: "<p>Hi</p>", Subject: "A gift", ClaimedAt: &at, MessageID: "m-1"},
			Reminder1: recipient.EmailSchedule{ScheduledTime: "2026-11-26T10:05:00.000Z", Attempts: 2, RetryAt: &later,
				Failure: recipient.EmailSuppressed},
			PostDelivery: recipient.EmailSchedule{Active: true},
		},
		Feedback: recipient.Feedback{Rating: &recipient.Rating{Value: "like", SubmittedAt: later},
			Message: []recipient.FeedbackMessage{{Type: "text", SubmittedAt: later, Text: "Thanks"}}},
		ShipmentInfo:   map[string]any{},
		AssignedUsers:  []recipient.AssignedUser{{UserID: "u1", UserName: "Ann"}},
		CreditsCharged: 36, ClaimedAt: &later,
		Address:        &recipient.ShippingAddress{Line1: "1 Main Street", City: "Springfield", Zip: "62701", Country: "US"},
		ClaimExpiresAt: &later,
	}
	for _, tt := range []struct {
		name string
		r    recipient.Recipient
		want string
	}{
		{"claimed, with feedback and a failed reminder", full,
			`{"recipientId":"R1","campaignId":"C1","organizationId":"acme","landingPageId":"lp","claimPageId":"cp",` +
				`"contactDetails":{"contactId":"K1","firstName":"Jane","lastName":"Doe","email":"jane@example.com",` +
				`"company":"Acme \u0026 Co","jobTitle":"","addressLine1":"","addressLine2":"","city":"Paris","state":"",` +
				`"zip":"","country":"","phone":"","linkedInUrl":"","profileImage":""},"sourceType":"api","sourceId":"",` +
				`"status":"address_confirmed","createdAt":"2026-11-23T10:05:00.000Z",` +
				`"updatedAt":"2026-11-23T11:35:00.000Z","campaignName":"Spring \u003cthanks\u003e",` +
				`"giftDetails":{"giftId":"g1","name":"Coffee","price":35.5,"currency":"USD",` +
				`"selectedAt":"2026-11-23T11:35:00.000Z"},"selectedGift":{"giftId":"g1","name":"Coffee","price":35.5,` +
				`"currency":"USD","description":"Beans","imageUrl":"https://img.test/c.png",` +
				`"selectedAt":"2026-11-23T11:35:00.000Z","trackingLink":""},` +
				`"urls":{"landingPage":"https://gifts.test/gift/lp","claimPage":"https://gifts.test/claim/cp"},` +
				`"personalization":{"giftCard":{}},"emails":{"addressConfirmation":{"active":true,` +
				`"scheduledTime":"2026-11-23T10:05:00.000Z","sent":true,"sentAt":"2026-11-23T10:05:00.000Z",` +
				`"html":"\u003cp\u003eHi\u003c/p\u003e","subject":"A gift","claimedAt":"2026-11-23T10:05:00.000Z",` +
				`"messageId":"m-1"},"reminder1":{"active":false,"scheduledTime":"2026-11-26T10:05:00.000Z","sent":false,` +
				`"sentAt":null,"html":"","subject":"","attempts":2,"retryAt":"2026-11-23T11:35:00.000Z",` +
				`"failure":"suppressed"},"reminder2":{"active":false,"scheduledTime":"","sent":false,"sentAt":null,` +
				`"html":"","subject":""},"shipped":{"active":false,"scheduledTime":"","sent":false,"sentAt":null,` +
				`"html":"","subject":""},"postDelivery":{"active":true,"scheduledTime":"","sent":false,"sentAt":null,` +
				`"html":"","subject":""},"postAcknowledgement":{"active":false,"scheduledTime":"","sent":false,` +
				`"sentAt":null,"html":"","subject":""}},"feedback":{"rating":{"value":"like",` +
				`"submittedAt":"2026-11-23T11:35:00.000Z"},"message":[{"type":"text",` +
				`"submittedAt":"2026-11-23T11:35:00.000Z","url":"","text":"Thanks"}]},"shipmentInfo":{},` +
				`"assignedUsers":[{"userId":"u1","userName":"Ann"}],"creditsCharged":36,"viewedAt":null,` +
				`"claimedAt":"2026-11-23T11:35:00.000Z","address":{"line1":"1 Main Street","line2":"",` +
				`"city":"Springfield","state":"","zip":"62701","country":"US","phoneNumber":""},` +
				`"claimExpiresAt":"2026-11-23T11:35:00.000Z"}`},
		{"bare", recipient.Recipient{RecipientID: "R2", Status: gifting.RecipientPending, CreatedAt: at, UpdatedAt: at},
			`{"recipientId":"R2","campaignId":"","organizationId":"","landingPageId":"","claimPageId":"",` +
				`"contactDetails":{"contactId":"","firstName":"","lastName":"","email":"","company":"","jobTitle":"",` +
				`"addressLine1":"","addressLine2":"","city":"","state":"","zip":"","country":"","phone":"",` +
				`"linkedInUrl":"","profileImage":""},"sourceType":"","sourceId":"","status":"pending",` +
				`"createdAt":"2026-11-23T10:05:00.000Z","updatedAt":"2026-11-23T10:05:00.000Z","campaignName":"",` +
				`"giftDetails":{"giftId":"","name":"","price":0,"currency":"","selectedAt":null},` +
				`"selectedGift":{"giftId":"","name":"","price":0,"currency":"","description":"","imageUrl":"",` +
				`"selectedAt":null,"trackingLink":""},"urls":{"landingPage":"","claimPage":""},` +
				`"personalization":{"giftCard":null},"emails":{"addressConfirmation":{"active":false,"scheduledTime":"",` +
				`"sent":false,"sentAt":null,"html":"","subject":""},"reminder1":{"active":false,"scheduledTime":"",` +
				`"sent":false,"sentAt":null,"html":"","subject":""},"reminder2":{"active":false,"scheduledTime":"",` +
				`"sent":false,"sentAt":null,"html":"","subject":""},"shipped":{"active":false,"scheduledTime":"",` +
				`"sent":false,"sentAt":null,"html":"","subject":""},"postDelivery":{"active":false,"scheduledTime":"",` +
				`"sent":false,"sentAt":null,"html":"","subject":""},"postAcknowledgement":{"active":false,` +
				`"scheduledTime":"","sent":false,"sentAt":null,"html":"","subject":""}},"feedback":{"rating":null,` +
				`"message":null},"shipmentInfo":null,"assignedUsers":null,"creditsCharged":0,"viewedAt":null,` +
				`"claimedAt":null,"address":null,"claimExpiresAt":null}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := wire.Marshal(wire.RecipientOf(tt.r))
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("recipient %s\nwant      %s", b, tt.want)
			}
		})
	}
}
