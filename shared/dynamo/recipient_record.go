package dynamo

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// The stored form of a recipient's record: storage's own structs, with
// the attribute names on disk, converted to and from the recipient
// slice's types. The parts other than the emails and the feedback have the
// domain's fields, so a conversion copies them (and fails to compile if the
// two drift).

// recipientRecord is the record of a recipient item as stored: packed
// (packRecipient), or as the item's attributes in the first layout. Its
// names are those the API's type had when it was stored as it was; they
// must never change (the packed records' dictionary spells them too).
type recipientRecord struct {
	RecipientID     string                  `json:"recipientId"`
	CampaignID      string                  `json:"campaignId"`
	OrganizationID  string                  `json:"organizationId"`
	LandingPageID   string                  `json:"landingPageId"`
	ClaimPageID     string                  `json:"claimPageId"`
	ContactDetails  contactDetailsRecord    `json:"contactDetails"`
	SourceType      string                  `json:"sourceType"`
	SourceID        string                  `json:"sourceId"`
	Status          gifting.RecipientStatus `json:"status"`
	CreatedAt       time.Time               `json:"createdAt"`
	UpdatedAt       time.Time               `json:"updatedAt"`
	CampaignName    string                  `json:"campaignName"`
	GiftDetails     giftDetailsRecord       `json:"giftDetails"`
	SelectedGift    selectedGiftRecord      `json:"selectedGift"`
	URLs            urlsRecord              `json:"urls"`
	Personalization personalizationRecord   `json:"personalization"`
	Emails          emailsRecord            `json:"emails"`
	Feedback        feedbackRecord          `json:"feedback"`
	ShipmentInfo    map[string]any          `json:"shipmentInfo"`
	AssignedUsers   []assignedUserRecord    `json:"assignedUsers"`
	CreditsCharged  int64                   `json:"creditsCharged"`
	ViewedAt        *time.Time              `json:"viewedAt"`
	ClaimedAt       *time.Time              `json:"claimedAt"`
	Address         *shippingAddressRecord  `json:"address"`
	ClaimExpiresAt  *time.Time              `json:"claimExpiresAt"`
	// MeetingClickedAt appears once the recipient followed its meeting
	// link (Store.MarkPage sets it beside the record too).
	MeetingClickedAt *time.Time `json:"meetingClickedAt,omitempty"`
	// Resends and ResentAt appear once the sender had the invitation sent
	// again (recipient.Recipient.Resends).
	Resends  int        `json:"resends,omitempty"`
	ResentAt *time.Time `json:"resentAt,omitempty"`
}

type contactDetailsRecord struct {
	ContactID    string `json:"contactId"`
	FirstName    string `json:"firstName"`
	LastName     string `json:"lastName"`
	Email        string `json:"email"`
	Company      string `json:"company"`
	JobTitle     string `json:"jobTitle"`
	AddressLine1 string `json:"addressLine1"`
	AddressLine2 string `json:"addressLine2"`
	City         string `json:"city"`
	State        string `json:"state"`
	Zip          string `json:"zip"`
	Country      string `json:"country"`
	Phone        string `json:"phone"`
	LinkedInURL  string `json:"linkedInUrl"`
	ProfileImage string `json:"profileImage"`
	Locale       string `json:"locale,omitempty"`
}

type giftDetailsRecord struct {
	GiftID     string     `json:"giftId"`
	Name       string     `json:"name"`
	Price      float64    `json:"price"`
	Currency   string     `json:"currency"`
	SelectedAt *time.Time `json:"selectedAt"`
}

type selectedGiftRecord struct {
	GiftID       string     `json:"giftId"`
	Name         string     `json:"name"`
	Price        float64    `json:"price"`
	Currency     string     `json:"currency"`
	Description  string     `json:"description"`
	ImageURL     string     `json:"imageUrl"`
	SelectedAt   *time.Time `json:"selectedAt"`
	TrackingLink string     `json:"trackingLink"`
}

type urlsRecord struct {
	LandingPage string `json:"landingPage"`
	ClaimPage   string `json:"claimPage"`
}

type personalizationRecord struct {
	GiftCard   map[string]any `json:"giftCard"`
	Message    string         `json:"message,omitempty"`
	SenderName string         `json:"senderName,omitempty"`
}

type emailsRecord struct {
	AddressConfirmation emailRecord `json:"addressConfirmation"`
	Reminder1           emailRecord `json:"reminder1"`
	Reminder2           emailRecord `json:"reminder2"`
	// Shipped is left out until the recipient ships (it is activated
	// then): most of a recipient's life, and its item, go without it.
	Shipped             emailRecord `json:"shipped,omitzero"`
	PostDelivery        emailRecord `json:"postDelivery"`
	PostAcknowledgement emailRecord `json:"postAcknowledgement"`
}

type emailRecord struct {
	Active        bool       `json:"active"`
	ScheduledTime string     `json:"scheduledTime"`
	Sent          bool       `json:"sent"`
	SentAt        *time.Time `json:"sentAt"`
	HTML          string     `json:"html"`
	Subject       string     `json:"subject"`
	ClaimedAt     *time.Time `json:"claimedAt,omitempty"`
	MessageID     string     `json:"messageId,omitempty"`
	Attempts      int        `json:"attempts,omitempty"`
	RetryAt       *time.Time `json:"retryAt,omitempty"`
	Failure       string     `json:"failure,omitempty"`
}

type feedbackRecord struct {
	Rating  *ratingRecord           `json:"rating"`
	Message []feedbackMessageRecord `json:"message"`
}

type ratingRecord struct {
	Value       string    `json:"value"`
	SubmittedAt time.Time `json:"submittedAt"`
}

type feedbackMessageRecord struct {
	Type        string    `json:"type"`
	SubmittedAt time.Time `json:"submittedAt"`
	URL         string    `json:"url"`
	Text        string    `json:"text"`
}

type assignedUserRecord struct {
	UserID   string `json:"userId"`
	UserName string `json:"userName"`
}

type shippingAddressRecord struct {
	Line1       string `json:"line1"`
	Line2       string `json:"line2"`
	City        string `json:"city"`
	State       string `json:"state"`
	Zip         string `json:"zip"`
	Country     string `json:"country"`
	PhoneNumber string `json:"phoneNumber"`
}

func recipientRecordOf(r recipient.Recipient) recipientRecord {
	e := r.Emails
	return recipientRecord{
		RecipientID: r.RecipientID, CampaignID: r.CampaignID, OrganizationID: r.OrganizationID,
		LandingPageID: r.LandingPageID, ClaimPageID: r.ClaimPageID, ContactDetails: contactDetailsRecord(r.ContactDetails),
		SourceType: r.SourceType, SourceID: r.SourceID, Status: r.Status, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		CampaignName: r.CampaignName, GiftDetails: giftDetailsRecord(r.GiftDetails), SelectedGift: selectedGiftRecord(r.SelectedGift),
		URLs: urlsRecord(r.URLs), Personalization: personalizationRecord(r.Personalization),
		Emails: emailsRecord{
			AddressConfirmation: emailRecord(e.AddressConfirmation), Reminder1: emailRecord(e.Reminder1),
			Reminder2: emailRecord(e.Reminder2), Shipped: emailRecord(e.Shipped), PostDelivery: emailRecord(e.PostDelivery),
			PostAcknowledgement: emailRecord(e.PostAcknowledgement),
		},
		Feedback: feedbackRecord{
			Rating:  (*ratingRecord)(r.Feedback.Rating),
			Message: convert(r.Feedback.Message, func(m recipient.FeedbackMessage) feedbackMessageRecord { return feedbackMessageRecord(m) }),
		},
		ShipmentInfo:   r.ShipmentInfo,
		AssignedUsers:  convert(r.AssignedUsers, func(u recipient.AssignedUser) assignedUserRecord { return assignedUserRecord(u) }),
		CreditsCharged: r.CreditsCharged, ViewedAt: r.ViewedAt, ClaimedAt: r.ClaimedAt,
		Address: (*shippingAddressRecord)(r.Address), ClaimExpiresAt: r.ClaimExpiresAt,
		Resends: r.Resends, ResentAt: r.ResentAt, MeetingClickedAt: r.MeetingClickedAt,
	}
}

func (v recipientRecord) recipient() recipient.Recipient {
	e := v.Emails
	return recipient.Recipient{
		RecipientID: v.RecipientID, CampaignID: v.CampaignID, OrganizationID: v.OrganizationID,
		LandingPageID: v.LandingPageID, ClaimPageID: v.ClaimPageID, ContactDetails: recipient.ContactDetails(v.ContactDetails),
		SourceType: v.SourceType, SourceID: v.SourceID, Status: v.Status, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt,
		CampaignName: v.CampaignName, GiftDetails: recipient.GiftDetails(v.GiftDetails), SelectedGift: recipient.SelectedGift(v.SelectedGift),
		URLs: recipient.URLs(v.URLs), Personalization: recipient.Personalization(v.Personalization),
		Emails: recipient.Emails{
			AddressConfirmation: recipient.EmailSchedule(e.AddressConfirmation), Reminder1: recipient.EmailSchedule(e.Reminder1),
			Reminder2: recipient.EmailSchedule(e.Reminder2), Shipped: recipient.EmailSchedule(e.Shipped), PostDelivery: recipient.EmailSchedule(e.PostDelivery),
			PostAcknowledgement: recipient.EmailSchedule(e.PostAcknowledgement),
		},
		Feedback: recipient.Feedback{
			Rating:  (*recipient.Rating)(v.Feedback.Rating),
			Message: convert(v.Feedback.Message, func(m feedbackMessageRecord) recipient.FeedbackMessage { return recipient.FeedbackMessage(m) }),
		},
		ShipmentInfo:   v.ShipmentInfo,
		AssignedUsers:  convert(v.AssignedUsers, func(u assignedUserRecord) recipient.AssignedUser { return recipient.AssignedUser(u) }),
		CreditsCharged: v.CreditsCharged, ViewedAt: v.ViewedAt, ClaimedAt: v.ClaimedAt,
		Address: (*recipient.ShippingAddress)(v.Address), ClaimExpiresAt: v.ClaimExpiresAt,
		Resends: v.Resends, ResentAt: v.ResentAt, MeetingClickedAt: v.MeetingClickedAt,
	}
}

// convert maps each of in with f, keeping a nil slice nil.
func convert[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
