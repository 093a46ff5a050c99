// Package recipient is the recipient slice: a contact taking part in a
// campaign, from the moment it is added (and paid for) through its
// invitation, reminders and claim to its delivery, or to its expiry and
// refund.
//
// It holds the slice's domain types (no JSON or attribute tags: the API's
// and the webhook messages' shape is shared/wire's Recipient, the stored
// item shared/dynamo's), its pure decisions (DecideAdd, DecideClaim,
// DecideExpiry, the moves of the state machine, the email lease: state in,
// a plan or the domain error out), the ports it needs of storage (store.go)
// and its application layer (App: load → decide → commit, deciding again
// when a condition of the commit failed). Storage implements the ports and
// imports this package for its types, plans and outcomes, never App
// (TestStorageDecidesNothing keeps it so).
//
// A recipient's status values are gifting.RecipientStatus: the campaign's
// counters are kept by them too, so they stay in the shared kernel; the
// moves between them are this package's (moves.go).
package recipient

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Recipient is a contact taking part in a campaign. Timestamps and the
// address are nil until they happen; collections are empty rather than
// nil once Normalize ran.
type Recipient struct {
	RecipientID     string
	CampaignID      string
	OrganizationID  string
	LandingPageID   string
	ClaimPageID     string
	ContactDetails  ContactDetails
	SourceType      string
	SourceID        string
	Status          gifting.RecipientStatus
	CreatedAt       time.Time
	UpdatedAt       time.Time
	CampaignName    string
	GiftDetails     GiftDetails
	SelectedGift    SelectedGift
	URLs            URLs
	Personalization Personalization
	Emails          Emails
	Feedback        Feedback
	ShipmentInfo    map[string]any
	AssignedUsers   []AssignedUser
	// CreditsCharged is what the recipient costs the wallet: what adding
	// it took, less what its claim gave back (a gift cheaper than the
	// credits held for it).
	CreditsCharged int64
	// ViewedAt is when the recipient first opened the landing page;
	// MeetingClickedAt when it first followed its campaign's meeting link
	// (gifting.Meeting).
	ViewedAt, MeetingClickedAt *time.Time
	// ClaimedAt is when the recipient confirmed the shipping address on the
	// claim page.
	ClaimedAt *time.Time
	// Address is the shipping address the recipient confirmed.
	Address *ShippingAddress
	// ClaimExpiresAt is when the recipient expires if it has not confirmed
	// an address by then: its campaign's claimExpiresInDays after it was
	// added (nil for a recipient added before expiry existed).
	ClaimExpiresAt *time.Time
	// Resends counts the times the sender had the invitation sent again
	// (at most MaxResends); ResentAt is the last.
	Resends  int
	ResentAt *time.Time
}

// ContactDetails is the copy of the contact a recipient carries, taken when
// the recipient is added.
type ContactDetails struct {
	ContactID    string
	FirstName    string
	LastName     string
	Email        string
	Company      string
	JobTitle     string
	AddressLine1 string
	AddressLine2 string
	City         string
	State        string
	Zip          string
	Country      string
	Phone        string
	LinkedInURL  string
	ProfileImage string
	// Locale is the contact's language (BCP 47, i18n.Canonical), "" when
	// unknown: the pages and emails are in it when they can be.
	Locale string
}

// DetailsOf is the recipient's copy of contact c.
func DetailsOf(c gifting.Contact) ContactDetails {
	return ContactDetails{
		ContactID: c.ContactID, FirstName: c.FirstName, LastName: c.LastName, Email: c.MailID,
		Company: c.CompanyName, JobTitle: c.JobTitle, AddressLine1: c.Address.Line1, AddressLine2: c.Address.Line2,
		City: c.Address.City, State: c.Address.State, Zip: c.Address.Zip, Country: c.Address.Country,
		Phone: c.PhoneNumber, LinkedInURL: c.LinkedinURL, ProfileImage: c.ProfileImage, Locale: c.Locale,
	}
}

// GiftDetails is the gift held for the recipient. SelectedAt is nil until
// a gift is chosen (by the recipient, or because the campaign has one gift).
type GiftDetails struct {
	GiftID     string
	Name       string
	Price      float64
	Currency   string
	SelectedAt *time.Time
}

// SelectedGift is the gift the recipient chose, with what a landing page
// shows of it and, once shipped, its tracking link.
type SelectedGift struct {
	GiftID       string
	Name         string
	Price        float64
	Currency     string
	Description  string
	ImageURL     string
	SelectedAt   *time.Time
	TrackingLink string
}

// selectGift is what the recipient holds of gift g chosen at at.
func selectGift(g gifting.Gift, at time.Time) (GiftDetails, SelectedGift) {
	img := ""
	if len(g.ImageURLs) > 0 {
		img = g.ImageURLs[0]
	}
	return GiftDetails{GiftID: g.GiftID, Name: g.Name, Price: g.Price, Currency: g.Currency, SelectedAt: &at},
		SelectedGift{GiftID: g.GiftID, Name: g.Name, Price: g.Price, Currency: g.Currency,
			Description: g.ShortDescription, ImageURL: img, SelectedAt: &at}
}

// URLs are the recipient's pages.
type URLs struct {
	LandingPage string
	ClaimPage   string
}

// Personalization is what the pages show for this recipient. The contents of
// giftCard were not specified by the original interface: a free-form object.
type Personalization struct {
	GiftCard map[string]any
	// Message is the sender's own note to this recipient (placeholders
	// and all, see Note), SenderName who signs it; "" for the campaign's
	// default message and the organization's sender name.
	Message    string
	SenderName string
}

// Feedback is what the recipient said: a rating and messages. Rating is
// nil until given.
type Feedback struct {
	Rating  *Rating
	Message []FeedbackMessage
}

// Has reports whether the recipient gave any feedback.
func (f Feedback) Has() bool { return f.Rating != nil || len(f.Message) > 0 }

// Rating is the recipient's verdict on the gift.
type Rating struct {
	Value       string
	SubmittedAt time.Time
}

// FeedbackMessage is one message from the recipient: a text, a link (for
// instance to a video), or both.
type FeedbackMessage struct {
	Type        string
	SubmittedAt time.Time
	URL         string
	Text        string
}

// AssignedUser is a user of the organization who looks after the recipient.
type AssignedUser struct {
	UserID   string
	UserName string
}

// SourceTypes are the allowed sourceType values of add-recipient (the
// original interface). A recipient added by a campaign launch has the
// source type SourceContactList.
var SourceTypes = []string{"manual", "csv", "crm", "api", "sso", "zapier", "webhook"}

// Source types set by the service itself.
const (
	// SourceContactList marks recipients a launch added from the campaign's
	// contact list; their sourceId is the list id.
	SourceContactList = "contact_list"
	// DefaultSourceType is the sourceType of an add-recipient without one.
	DefaultSourceType = "api"
)

// Normalize replaces nil collections by empty ones, so a recipient read
// back from storage shows {} and [] rather than null.
func (r *Recipient) Normalize() {
	if r.Personalization.GiftCard == nil {
		r.Personalization.GiftCard = map[string]any{}
	}
	if r.Feedback.Message == nil {
		r.Feedback.Message = []FeedbackMessage{}
	}
	if r.ShipmentInfo == nil {
		r.ShipmentInfo = map[string]any{}
	}
	if r.AssignedUsers == nil {
		r.AssignedUsers = []AssignedUser{}
	}
}

// AssignedTo reports whether user userID looks after the recipient.
func (r *Recipient) AssignedTo(userID string) bool {
	for _, u := range r.AssignedUsers {
		if u.UserID == userID {
			return true
		}
	}
	return false
}

// Stored is a recipient as storage holds it: the recipient, the version
// every write of it is conditioned on (so of two writers that read the same
// version one wins), and what is kept beside it.
type Stored struct {
	Recipient
	Version int64
	// Delays are the template delays (hours) of the emails that wait for
	// an event (delivery, acknowledgement), so a status move schedules
	// them without reading the template.
	Delays map[string]int
	// EmailSet names the stored copy of the template's emails the
	// recipient's are rendered from when read; "" for a recipient written
	// before sets, which carries its rendered emails.
	EmailSet string
	// Slice is the launch slice that wrote the recipient, "" for an added
	// one: a slice run again knows its own recipients.
	Slice string
}

// Next is r, the recipient s changed, as its next version: s's delays,
// email set and launch slice stay.
func (s Stored) Next(r Recipient) Stored {
	return Stored{Recipient: r, Version: s.Version + 1, Delays: s.Delays, EmailSet: s.EmailSet, Slice: s.Slice}
}
