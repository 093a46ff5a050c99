package wire

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// Recipient is a recipient as the API answers it and as the recipient.*
// messages carry it (the OpenAPI schema Recipient): one shape, declared
// once, for both doors. Every field is present; the ones without a value
// yet are empty strings, false, null (timestamps) or empty objects.
type Recipient struct {
	RecipientID     string                  `json:"recipientId"`
	CampaignID      string                  `json:"campaignId"`
	OrganizationID  string                  `json:"organizationId"`
	LandingPageID   string                  `json:"landingPageId"`
	ClaimPageID     string                  `json:"claimPageId"`
	ContactDetails  RecipientContact        `json:"contactDetails"`
	SourceType      string                  `json:"sourceType"`
	SourceID        string                  `json:"sourceId"`
	Status          gifting.RecipientStatus `json:"status"`
	CreatedAt       time.Time               `json:"createdAt"`
	UpdatedAt       time.Time               `json:"updatedAt"`
	CampaignName    string                  `json:"campaignName"`
	GiftDetails     GiftDetails             `json:"giftDetails"`
	SelectedGift    SelectedGift            `json:"selectedGift"`
	URLs            RecipientURLs           `json:"urls"`
	Personalization Personalization         `json:"personalization"`
	Emails          RecipientEmails         `json:"emails"`
	Feedback        Feedback                `json:"feedback"`
	ShipmentInfo    map[string]any          `json:"shipmentInfo"`
	AssignedUsers   []AssignedUser          `json:"assignedUsers"`
	CreditsCharged  int64                   `json:"creditsCharged"`
	ViewedAt        *time.Time              `json:"viewedAt"`
	ClaimedAt       *time.Time              `json:"claimedAt"`
	Address         *ShippingAddress        `json:"address"`
	ClaimExpiresAt  *time.Time              `json:"claimExpiresAt"`
	// MeetingClickedAt appears once the recipient followed its campaign's
	// meeting link.
	MeetingClickedAt *time.Time `json:"meetingClickedAt,omitempty"`
	// Resends and LastResentAt appear once the sender had the invitation
	// sent again (POST …/resend).
	Resends      int        `json:"resends,omitempty"`
	LastResentAt *time.Time `json:"lastResentAt,omitempty"`
}

// RecipientContact is the copy of the contact a recipient carries.
type RecipientContact struct {
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

// GiftDetails is the gift held for the recipient.
type GiftDetails struct {
	GiftID     string     `json:"giftId"`
	Name       string     `json:"name"`
	Price      float64    `json:"price"`
	Currency   string     `json:"currency"`
	SelectedAt *time.Time `json:"selectedAt"`
}

// SelectedGift is the gift the recipient chose.
type SelectedGift struct {
	GiftID       string     `json:"giftId"`
	Name         string     `json:"name"`
	Price        float64    `json:"price"`
	Currency     string     `json:"currency"`
	Description  string     `json:"description"`
	ImageURL     string     `json:"imageUrl"`
	SelectedAt   *time.Time `json:"selectedAt"`
	TrackingLink string     `json:"trackingLink"`
}

// RecipientURLs are the recipient's pages.
type RecipientURLs struct {
	LandingPage string `json:"landingPage"`
	ClaimPage   string `json:"claimPage"`
}

// Personalization is what the pages show for this recipient.
type Personalization struct {
	GiftCard   map[string]any `json:"giftCard"`
	Message    string         `json:"message,omitempty"`
	SenderName string         `json:"senderName,omitempty"`
}

// RecipientEmails is the recipient's email schedule.
type RecipientEmails struct {
	AddressConfirmation EmailSchedule `json:"addressConfirmation"`
	Reminder1           EmailSchedule `json:"reminder1"`
	Reminder2           EmailSchedule `json:"reminder2"`
	Shipped             EmailSchedule `json:"shipped"`
	PostDelivery        EmailSchedule `json:"postDelivery"`
	PostAcknowledgement EmailSchedule `json:"postAcknowledgement"`
}

// EmailSchedule is one scheduled email, with its sending's record (the
// last five fields, left out until set).
type EmailSchedule struct {
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

// Feedback is what the recipient said.
type Feedback struct {
	Rating  *Rating           `json:"rating"`
	Message []FeedbackMessage `json:"message"`
}

// Rating is the recipient's verdict on the gift.
type Rating struct {
	Value       string    `json:"value"`
	SubmittedAt time.Time `json:"submittedAt"`
}

// FeedbackMessage is one message from the recipient.
type FeedbackMessage struct {
	Type        string    `json:"type"`
	SubmittedAt time.Time `json:"submittedAt"`
	URL         string    `json:"url"`
	Text        string    `json:"text"`
}

// AssignedUser is a user who looks after the recipient.
type AssignedUser struct {
	UserID   string `json:"userId"`
	UserName string `json:"userName"`
}

// ShippingAddress is the address the recipient confirmed.
type ShippingAddress struct {
	Line1       string `json:"line1"`
	Line2       string `json:"line2"`
	City        string `json:"city"`
	State       string `json:"state"`
	Zip         string `json:"zip"`
	Country     string `json:"country"`
	PhoneNumber string `json:"phoneNumber"`
}

// RecipientOf is r as it leaves the service. The types of its parts
// other than the emails and the feedback are the domain's with tags, so a
// conversion copies them (and fails to compile if the two drift).
func RecipientOf(r recipient.Recipient) Recipient {
	e := r.Emails
	return Recipient{
		RecipientID: r.RecipientID, CampaignID: r.CampaignID, OrganizationID: r.OrganizationID,
		LandingPageID: r.LandingPageID, ClaimPageID: r.ClaimPageID, ContactDetails: RecipientContact(r.ContactDetails),
		SourceType: r.SourceType, SourceID: r.SourceID, Status: r.Status, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		CampaignName: r.CampaignName, GiftDetails: GiftDetails(r.GiftDetails), SelectedGift: SelectedGift(r.SelectedGift),
		URLs: RecipientURLs(r.URLs), Personalization: Personalization(r.Personalization),
		Emails: RecipientEmails{
			AddressConfirmation: EmailSchedule(e.AddressConfirmation), Reminder1: EmailSchedule(e.Reminder1),
			Reminder2: EmailSchedule(e.Reminder2), Shipped: EmailSchedule(e.Shipped), PostDelivery: EmailSchedule(e.PostDelivery),
			PostAcknowledgement: EmailSchedule(e.PostAcknowledgement),
		},
		Feedback: Feedback{
			Rating:  (*Rating)(r.Feedback.Rating),
			Message: convert(r.Feedback.Message, func(m recipient.FeedbackMessage) FeedbackMessage { return FeedbackMessage(m) }),
		},
		ShipmentInfo:   r.ShipmentInfo,
		AssignedUsers:  convert(r.AssignedUsers, func(u recipient.AssignedUser) AssignedUser { return AssignedUser(u) }),
		CreditsCharged: r.CreditsCharged, ViewedAt: r.ViewedAt, ClaimedAt: r.ClaimedAt,
		Address: (*ShippingAddress)(r.Address), ClaimExpiresAt: r.ClaimExpiresAt,
		Resends: r.Resends, LastResentAt: r.ResentAt, MeetingClickedAt: r.MeetingClickedAt,
	}
}

// RecipientsOf is rs as they leave the service.
func RecipientsOf(rs []recipient.Recipient) []Recipient {
	return convert(rs, RecipientOf)
}

// RecipientStatusChange is the data of recipient.status_changed: the
// recipient as moved, and the status it left.
type RecipientStatusChange struct {
	Recipient
	PreviousStatus gifting.RecipientStatus `json:"previousStatus"`
}

// RecipientStatusChangeOf is the data of the message of move m.
func RecipientStatusChangeOf(m recipient.StatusChange) RecipientStatusChange {
	return RecipientStatusChange{Recipient: RecipientOf(m.Recipient), PreviousStatus: m.PreviousStatus}
}

// convert maps each of in with f, keeping a nil slice nil and an empty one
// empty: JSON tells null from [].
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

// AddedRecipient is the answer of add-recipient (the OpenAPI schema
// AddedRecipient), every field required. Its idempotency record keeps it as
// sent, and a retry with the same key is answered with those bytes.
type AddedRecipient struct {
	Success          bool   `json:"success"`
	Message          string `json:"message"`
	CampaignID       string `json:"campaignId"`
	ContactID        string `json:"contactId"`
	RecipientID      string `json:"recipientId"`
	EmailSent        bool   `json:"emailSent"`
	CreditsDeducted  int64  `json:"creditsDeducted"`
	RemainingBalance int64  `json:"remainingBalance"`
	LandingPageURL   string `json:"landingPageUrl"`
	ClaimPageURL     string `json:"claimPageUrl"`
}

// AddedRecipientOf is the answer of add-recipient a.
func AddedRecipientOf(a recipient.Added) AddedRecipient {
	return AddedRecipient{
		Success: true, Message: "Recipient added", CampaignID: a.CampaignID, ContactID: a.ContactID,
		RecipientID: a.RecipientID, EmailSent: a.EmailSent, CreditsDeducted: a.CreditsDeducted,
		RemainingBalance: a.RemainingBalance, LandingPageURL: a.LandingPageURL, ClaimPageURL: a.ClaimPageURL,
	}
}
