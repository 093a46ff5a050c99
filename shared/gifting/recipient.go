package gifting

import (
	"html"
	"slices"
	"strings"
	"time"
)

// Recipient is a contact taking part in a campaign (the OpenAPI schema
// Recipient). Every field of the original interface is present in the JSON
// form; the ones without a value yet are empty strings, false, null
// (timestamps) or empty objects.
type Recipient struct {
	RecipientID     string          `json:"recipientId"`
	CampaignID      string          `json:"campaignId"`
	OrganizationID  string          `json:"organizationId"`
	LandingPageID   string          `json:"landingPageId"`
	ClaimPageID     string          `json:"claimPageId"`
	ContactDetails  ContactDetails  `json:"contactDetails"`
	SourceType      string          `json:"sourceType"`
	SourceID        string          `json:"sourceId"`
	Status          RecipientStatus `json:"status"`
	CreatedAt       time.Time       `json:"createdAt"`
	UpdatedAt       time.Time       `json:"updatedAt"`
	CampaignName    string          `json:"campaignName"`
	GiftDetails     GiftDetails     `json:"giftDetails"`
	SelectedGift    SelectedGift    `json:"selectedGift"`
	URLs            RecipientURLs   `json:"urls"`
	Personalization Personalization `json:"personalization"`
	Emails          RecipientEmails `json:"emails"`
	Feedback        Feedback        `json:"feedback"`
	ShipmentInfo    map[string]any  `json:"shipmentInfo"`
	AssignedUsers   []AssignedUser  `json:"assignedUsers"`
	// CreditsCharged is what the recipient costs the wallet: what adding
	// it took, less what its claim gave back (a gift cheaper than the
	// credits held for it).
	CreditsCharged int64 `json:"creditsCharged"`
	// ViewedAt is when the recipient first opened the landing page, null
	// until then.
	ViewedAt *time.Time `json:"viewedAt"`
	// ClaimedAt is when the recipient confirmed the shipping address on the
	// claim page, null until then.
	ClaimedAt *time.Time `json:"claimedAt"`
	// Address is the shipping address the recipient confirmed, null until
	// then.
	Address *ShippingAddress `json:"address"`
	// ClaimExpiresAt is when the recipient expires if it has not confirmed
	// an address by then: its campaign's claimExpiresInDays after it was
	// added (null for a recipient added before expiry existed).
	ClaimExpiresAt *time.Time `json:"claimExpiresAt"`
}

// ContactDetails is the copy of the contact a recipient carries, taken when
// the recipient is added.
type ContactDetails struct {
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
}

// DetailsOf is the recipient's copy of contact c.
func DetailsOf(c Contact) ContactDetails {
	return ContactDetails{
		ContactID: c.ContactID, FirstName: c.FirstName, LastName: c.LastName, Email: c.MailID,
		Company: c.CompanyName, JobTitle: c.JobTitle, AddressLine1: c.Address.Line1, AddressLine2: c.Address.Line2,
		City: c.Address.City, State: c.Address.State, Zip: c.Address.Zip, Country: c.Address.Country,
		Phone: c.PhoneNumber, LinkedInURL: c.LinkedinURL, ProfileImage: c.ProfileImage,
	}
}

// GiftDetails is the gift held for the recipient. SelectedAt is null until
// a gift is chosen (by the recipient, or because the campaign has one gift).
type GiftDetails struct {
	GiftID     string     `json:"giftId"`
	Name       string     `json:"name"`
	Price      float64    `json:"price"`
	Currency   string     `json:"currency"`
	SelectedAt *time.Time `json:"selectedAt"`
}

// SelectedGift is the gift the recipient chose, with what a landing page
// shows of it and, once shipped, its tracking link.
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

// Personalization is what the pages show for this recipient. The contents of
// giftCard were not specified by the original interface: a free-form object.
type Personalization struct {
	GiftCard map[string]any `json:"giftCard"`
}

// RecipientEmails is the recipient's email schedule, one entry per kind of
// EmailKinds.
type RecipientEmails struct {
	AddressConfirmation EmailSchedule `json:"addressConfirmation"`
	Reminder1           EmailSchedule `json:"reminder1"`
	Reminder2           EmailSchedule `json:"reminder2"`
	PostDelivery        EmailSchedule `json:"postDelivery"`
	PostAcknowledgement EmailSchedule `json:"postAcknowledgement"`
}

// Kind returns the schedule entry of an email kind, nil for an unknown kind.
func (e *RecipientEmails) Kind(kind string) *EmailSchedule {
	switch kind {
	case "addressConfirmation":
		return &e.AddressConfirmation
	case "reminder1":
		return &e.Reminder1
	case "reminder2":
		return &e.Reminder2
	case "postDelivery":
		return &e.PostDelivery
	case "postAcknowledgement":
		return &e.PostAcknowledgement
	}
	return nil
}

// EmailSchedule is one scheduled email. Active is false when the template
// has no such email or it no longer applies (a reminder after the address
// was confirmed). ScheduledTime is an RFC 3339 time, or "" while the email
// waits for an event (delivery, acknowledgement). Sent and SentAt say the
// mail provider accepted the message; SentAt is null until then.
//
// The other fields are the sending's own record. ClaimedAt is when a
// sender took the email (see Recipient.ClaimEmail): a lease of EmailLease,
// after which an email still not recorded as sent is claimed again, so it
// goes out at least once (email_lease.go). MessageID is the provider's id
// of the message sent. Attempts counts the sends that failed
// for a reason a later one may get past, and RetryAt is when the next may
// run. Failure, once set, says why the email will never go out
// (EmailFailures) or, after it went out, that it bounced or drew a
// complaint.
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

// Failures recorded on an email entry (EmailSchedule.Failure) besides the
// mail provider's rejection reasons (shared/mail's Reason constants).
const (
	// EmailSuppressed: the address is on the organization's suppression
	// list, so the email was not sent.
	EmailSuppressed = "suppressed"
	// EmailAttemptsExhausted: MaxEmailAttempts sends failed.
	EmailAttemptsExhausted = "attemptsExhausted"
	// EmailBounced and EmailComplained: the email went out, then bounced
	// for good or drew a complaint; the recipient's later emails stop.
	EmailBounced    = "bounced"
	EmailComplained = "complained"
	// EmailUnsubscribed: the recipient unsubscribed; later emails stop.
	EmailUnsubscribed = "unsubscribed"
	// EmailCampaignDeleted: the recipient's campaign was deleted before
	// the email was due.
	EmailCampaignDeleted = "campaignDeleted"
)

// MaxEmailAttempts bounds the sends of one email that fail for a reason a
// later send may get past (throttling, the provider down); the last one
// records EmailAttemptsExhausted.
const MaxEmailAttempts = 5

// EmailRetryAfter is how long after its n-th failed send an email is tried
// again: 5 minutes, doubling.
func EmailRetryAfter(n int) time.Duration {
	return 5 * time.Minute << min(max(n-1, 0), 6)
}

// waiting reports whether e is still to be sent: active, scheduled, not
// sent, claimed or failed.
func (e EmailSchedule) waiting() bool {
	return e.Active && e.ScheduledTime != "" && !e.Sent && e.ClaimedAt == nil && e.Failure == ""
}

// dueAt is when a waiting e is due: its scheduled time, or its retry time
// when later.
func (e EmailSchedule) dueAt() time.Time {
	at, err := time.Parse(time.RFC3339Nano, e.ScheduledTime)
	if err != nil {
		return time.Time{} // a malformed time is due at once rather than never
	}
	if e.RetryAt != nil && e.RetryAt.After(at) {
		return *e.RetryAt
	}
	return at
}

// NextEmail returns the earliest email of the recipient that needs a
// sender (EmailSchedule.NextSendAt: one waiting, or one whose sender's
// lease runs out) and when; ok is false when none does.
func (r *Recipient) NextEmail() (kind string, at time.Time, ok bool) {
	for _, k := range EmailKinds {
		t, needs := r.Emails.Kind(k).NextSendAt()
		if needs && (!ok || t.Before(at)) {
			kind, at, ok = k, t, true
		}
	}
	return kind, at, ok
}

// DueEmails returns the kinds of the recipient's emails that need a sender
// at now (waiting and due, or claimed by a sender whose lease is over), in
// EmailKinds order.
func (r *Recipient) DueEmails(now time.Time) []string {
	var kinds []string
	for _, k := range EmailKinds {
		if at, ok := r.Emails.Kind(k).NextSendAt(); ok && !at.After(now) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// ErrEmailGivenUp is ClaimEmail's CONFLICT for an email whose senders lost
// MaxEmailAttempts leases or sends: the recipient now records
// EmailAttemptsExhausted on it, and storage writes that.
var ErrEmailGivenUp = Errorf(CodeConflict, "the email's senders failed %d times; it is recorded as failed", MaxEmailAttempts)

// ClaimEmail takes the email kind for sending at now, or returns CONFLICT
// when it needs no sender (sent, failed or no longer active), another
// sender's lease on it runs, or it is not due yet (a reminder put off by a
// late invitation, see MarkEmailSent). A claim whose lease is over
// (EmailSchedule.ClaimRetryable) is taken over and counts as a failed
// attempt; at MaxEmailAttempts the email fails instead
// (EmailAttemptsExhausted) and ClaimEmail returns ErrEmailGivenUp. Storage
// writes the claim conditioned on the version it read, so of two senders
// only one claims an email.
func (r *Recipient) ClaimEmail(kind string, now time.Time) error {
	e := r.Emails.Kind(kind)
	if e == nil {
		return Errorf(CodeConflict, "recipient %q has no email %s", r.RecipientID, kind)
	}
	due, ok := e.NextSendAt()
	switch {
	case !ok:
		return Errorf(CodeConflict, "email %s of recipient %q is not waiting to be sent", kind, r.RecipientID)
	case due.After(now) && e.ClaimedAt != nil:
		return Errorf(CodeConflict, "email %s of recipient %q is claimed by another sender until %s", kind, r.RecipientID, FormatTime(due))
	case due.After(now):
		return Errorf(CodeConflict, "email %s of recipient %q is not due until %s", kind, r.RecipientID, FormatTime(due))
	}
	if e.ClaimRetryable(now) {
		// The holder's attempt ended with nothing recorded: it failed, or
		// went out and was never recorded (the duplicate window).
		e.Attempts++
		if e.Attempts >= MaxEmailAttempts {
			e.ClaimedAt, e.Failure, r.UpdatedAt = nil, EmailAttemptsExhausted, now
			return ErrEmailGivenUp
		}
	}
	at := now
	e.ClaimedAt = &at
	return nil
}

// StopEmails records failure on every email of the recipient still to be
// sent (and on the sent email kind, when not ""), so none goes out again:
// a bounce, a complaint, an unsubscribe.
func (r *Recipient) StopEmails(kind, failure string, now time.Time) {
	for _, k := range EmailKinds {
		e := r.Emails.Kind(k)
		if k == kind || (e.Active && !e.Sent && e.Failure == "") {
			e.Failure = failure
		}
	}
	r.UpdatedAt = now
}

// Feedback is what the recipient said: a rating and messages. Rating is
// null until given.
type Feedback struct {
	Rating  *Rating           `json:"rating"`
	Message []FeedbackMessage `json:"message"`
}

// Has reports whether the recipient gave any feedback.
func (f Feedback) Has() bool { return f.Rating != nil || len(f.Message) > 0 }

// Rating is the recipient's verdict on the gift.
type Rating struct {
	Value       string    `json:"value"`
	SubmittedAt time.Time `json:"submittedAt"`
}

// FeedbackMessage is one message from the recipient: a text, a link (for
// instance to a video), or both.
type FeedbackMessage struct {
	Type        string    `json:"type"`
	SubmittedAt time.Time `json:"submittedAt"`
	URL         string    `json:"url"`
	Text        string    `json:"text"`
}

// AssignedUser is a user of the organization who looks after the recipient.
type AssignedUser struct {
	UserID   string `json:"userId"`
	UserName string `json:"userName"`
}

// RatingValues are the ratings a recipient can give. The original interface
// shows "like"; "dislike" is its counterpart.
var RatingValues = []string{"like", "dislike"}

// MaxFeedbackMessages bounds the messages kept on one recipient, so the item
// stays small.
const MaxFeedbackMessages = 20

// SourceTypes are the allowed sourceType values of add-recipient (the original
// interface). A recipient added by a campaign launch has the source type
// SourceContactList.
var SourceTypes = []string{"manual", "csv", "crm", "api", "sso", "zapier", "webhook"}

// Source types set by the service itself.
const (
	// SourceContactList marks recipients a launch added from the campaign's
	// contact list; their sourceId is the list id.
	SourceContactList = "contact_list"
	// DefaultSourceType is the sourceType of an add-recipient without one.
	DefaultSourceType = "api"
)

// NewRecipientSpec is everything a new recipient is built from.
type NewRecipientSpec struct {
	RecipientID, OrgID, CampaignID, CampaignName string
	Contact                                      Contact
	SourceType, SourceID                         string
	// LandingPageID and ClaimPageID name the recipient's pages; they must
	// be unguessable, since the pages need no other credential.
	LandingPageID, ClaimPageID string
	// PublicBaseURL is where the pages live, without a trailing slash.
	PublicBaseURL string
	// Emails are the campaign template's emails by kind (may be nil).
	Emails map[string]EmailTemplate
	// Gift, when the campaign has exactly one gift, is that gift: it is
	// selected for the recipient at once.
	Gift *Gift
	// Credits is what adding the recipient costs.
	Credits int64
	// ClaimExpiresInDays is how long the recipient has to claim its gift
	// (Campaign.ClaimExpiry).
	ClaimExpiresInDays int
	Now                time.Time
}

// NewRecipient builds a pending recipient with its pages and its email
// schedule, rendered from the template (RenderEmails).
func NewRecipient(sp NewRecipientSpec) Recipient {
	r := Recipient{
		RecipientID: sp.RecipientID, CampaignID: sp.CampaignID, OrganizationID: sp.OrgID,
		LandingPageID: sp.LandingPageID, ClaimPageID: sp.ClaimPageID,
		ContactDetails: DetailsOf(sp.Contact), SourceType: sp.SourceType, SourceID: sp.SourceID,
		Status: RecipientPending, CreatedAt: sp.Now, UpdatedAt: sp.Now, CampaignName: sp.CampaignName,
		URLs: RecipientURLs{
			LandingPage: sp.PublicBaseURL + "/gift/" + sp.LandingPageID,
			ClaimPage:   sp.PublicBaseURL + "/claim/" + sp.ClaimPageID,
		},
		CreditsCharged: sp.Credits,
	}
	if sp.ClaimExpiresInDays > 0 {
		exp := sp.Now.AddDate(0, 0, sp.ClaimExpiresInDays)
		r.ClaimExpiresAt = &exp
	}
	if g := sp.Gift; g != nil {
		at := sp.Now
		r.GiftDetails = GiftDetails{GiftID: g.GiftID, Name: g.Name, Price: g.Price, Currency: g.Currency, SelectedAt: &at}
		img := ""
		if len(g.ImageURLs) > 0 {
			img = g.ImageURLs[0]
		}
		r.SelectedGift = SelectedGift{GiftID: g.GiftID, Name: g.Name, Price: g.Price, Currency: g.Currency,
			Description: g.ShortDescription, ImageURL: img, SelectedAt: &at}
	}
	for _, kind := range EmailKinds {
		t, ok := sp.Emails[kind]
		if !ok {
			continue
		}
		e := r.Emails.Kind(kind)
		e.Active = true
		// The invitation and its reminders count from the moment the
		// recipient is added; the post-delivery and post-acknowledgement
		// emails from the event they follow (see Advance).
		if kind == "addressConfirmation" || kind == "reminder1" || kind == "reminder2" {
			e.ScheduledTime = FormatTime(sp.Now.Add(time.Duration(t.DelayHours) * time.Hour))
		}
	}
	r.RenderEmails(sp.Emails)
	r.Normalize()
	return r
}

// RenderEmails fills the subject and HTML of each of the recipient's
// emails from emails, the template's emails by kind, with the recipient's
// values (its name, company, campaign and page URLs). Kinds emails lacks
// are left as they are. A recipient's emails are rendered from its
// template's text whenever they are read, so a stored recipient need not
// carry them.
func (r *Recipient) RenderEmails(emails map[string]EmailTemplate) {
	subject, html := r.placeholders(false), r.placeholders(true)
	for _, kind := range EmailKinds {
		t, ok := emails[kind]
		if !ok {
			continue
		}
		e := r.Emails.Kind(kind)
		e.Subject = fill(t.Subject, subject)
		e.HTML = fill(t.HTML, html)
	}
}

// StripEmails empties the subject and HTML of each of the recipient's
// emails: what RenderEmails gives back from the template.
func (r *Recipient) StripEmails() {
	for _, kind := range EmailKinds {
		e := r.Emails.Kind(kind)
		e.Subject, e.HTML = "", ""
	}
}

// placeholders are the values of a template text's placeholders for the
// recipient, by name. In HTML every value is escaped, so a name such as
// <script> shows as text. Subjects are plain text: line breaks are
// removed so a value cannot add a mail header.
func (r *Recipient) placeholders(isHTML bool) map[string]string {
	esc := func(s string) string {
		if isHTML {
			return html.EscapeString(s)
		}
		return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	}
	first := r.ContactDetails.FirstName
	if first == "" {
		first = "there"
	}
	return map[string]string{
		"firstName":      esc(first),
		"lastName":       esc(r.ContactDetails.LastName),
		"company":        esc(r.ContactDetails.Company),
		"campaignName":   esc(r.CampaignName),
		"landingPageUrl": esc(r.URLs.LandingPage),
		"claimPageUrl":   esc(r.URLs.ClaimPage),
	}
}

// fill replaces each {{name}} in text whose name values holds with its
// value, in one pass (every read of a recipient renders its emails);
// anything else, "{{" without a known name included, stays as written.
func fill(text string, values map[string]string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(text[i+2:], "}}")
		if j < 0 {
			break
		}
		v, ok := values[text[i+2:i+2+j]]
		if !ok {
			// Not a placeholder: keep its first brace, look again after it.
			b.WriteString(text[:i+1])
			text = text[i+1:]
			continue
		}
		b.Grow(len(text) + len(v))
		b.WriteString(text[:i])
		b.WriteString(v)
		text = text[i+2+j+2:]
	}
	if b.Len() == 0 {
		return text
	}
	b.WriteString(text)
	return b.String()
}

// MarkEmailSent records that the mail provider accepted the email kind at
// now as messageID. The invitation of a pending recipient (one sent by the
// scheduler) moves it to invite_sent; MarkEmailSent reports the status it
// moved from, "" when it stayed.
func (r *Recipient) MarkEmailSent(kind, messageID string, now time.Time) (from RecipientStatus) {
	e := r.Emails.Kind(kind)
	at := now
	e.Sent, e.SentAt, e.MessageID, e.RetryAt = true, &at, messageID, nil
	if e.ClaimedAt == nil {
		e.ClaimedAt = &at
	}
	r.keepReminderDistance(kind, now)
	r.UpdatedAt = now
	if kind == "addressConfirmation" && r.Status == RecipientPending {
		r.Status = RecipientInviteSent
		r.restartExpiry(now)
		return RecipientPending
	}
	return ""
}

// inviteChain are the emails that follow one another from the moment a
// recipient is added: the invitation, then its reminders.
var inviteChain = []string{"addressConfirmation", "reminder1", "reminder2"}

// keepReminderDistance puts off the emails of inviteChain after kind,
// which goes out at now, by as long as kind went out after its scheduled
// time: an invitation held while its campaign was a draft or paused (or
// retried) is followed by its reminders as long after it as the template
// says, not at once. An email not in the chain changes nothing.
func (r *Recipient) keepReminderDistance(kind string, now time.Time) {
	i := slices.Index(inviteChain, kind)
	if i < 0 {
		return
	}
	at, err := time.Parse(time.RFC3339Nano, r.Emails.Kind(kind).ScheduledTime)
	if err != nil || !now.After(at) {
		return
	}
	late := now.Sub(at)
	for _, k := range inviteChain[i+1:] {
		e := r.Emails.Kind(k)
		if !e.waiting() {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, e.ScheduledTime); err == nil {
			e.ScheduledTime = FormatTime(t.Add(late))
		}
	}
}

// MarkEmailFailed records a failed send of the email kind, claimed at
// claimedAt, at now and releases its claim: failure is the reason it will
// never go out, or "" for a failure a later send may get past, which is
// retried after EmailRetryAfter until MaxEmailAttempts. It changes nothing
// and reports false when the claim is no longer the sender's (another
// sender took it over after its lease) or the email was sent meanwhile.
func (r *Recipient) MarkEmailFailed(kind, failure string, claimedAt, now time.Time) bool {
	e := r.Emails.Kind(kind)
	if e.Sent || e.ClaimedAt == nil || !e.ClaimedAt.Equal(claimedAt) {
		return false
	}
	e.ClaimedAt = nil
	e.Attempts++
	switch {
	case failure != "":
		e.Failure = failure
	case e.Attempts >= MaxEmailAttempts:
		e.Failure = EmailAttemptsExhausted
	default:
		at := now.Add(EmailRetryAfter(e.Attempts))
		e.RetryAt = &at
	}
	r.UpdatedAt = now
	return true
}

// Rank is the position of s in a recipient's journey (RecipientJourney),
// -1 for expired and for an unknown state.
func (s RecipientStatus) Rank() int { return slices.Index(RecipientJourney, s) }

// Valid reports whether s is a known recipient state (expired included).
func (s RecipientStatus) Valid() bool { return slices.Contains(RecipientStatuses, s) }

// CanMoveRecipient reports whether a recipient may move from one state to another.
// Recipients only move forward through RecipientJourney, and may skip
// states (a carrier may report delivery without an in-transit scan), but
// never go back or stay. Expired is neither reached nor left this way
// (Recipient.Expire).
func CanMoveRecipient(from, to RecipientStatus) bool {
	return from.Rank() >= 0 && to.Rank() > from.Rank()
}

// Advance moves the recipient to status to at now, or returns CONFLICT when
// the move goes backwards. Reminders that have not gone out stop once the
// address is confirmed; the post-delivery and post-acknowledgement emails
// are scheduled when delivery and acknowledgement happen, after their
// template delays (delayHours, by kind).
func (r *Recipient) Advance(to RecipientStatus, now time.Time, delayHours map[string]int) error {
	switch {
	case r.Status == RecipientExpired:
		return Errorf(CodeConflict, "recipient %q has expired (its gift was not claimed in time and its credits were refunded); no move leads out of expired", r.RecipientID)
	case to == RecipientExpired:
		return Errorf(CodeConflict, "a recipient cannot be moved to expired: it expires by itself when its claim period ends or its campaign is completed or deleted")
	case !CanMoveRecipient(r.Status, to):
		return Errorf(CodeConflict, "a recipient cannot move from %s to %s: recipients move forward only, through %s",
			r.Status, to, joinStatuses(RecipientJourney))
	}
	rank := to.Rank()
	if rank >= RecipientAddressConfirmed.Rank() {
		for _, e := range []*EmailSchedule{&r.Emails.Reminder1, &r.Emails.Reminder2} {
			if !e.Sent {
				e.Active = false
			}
		}
	}
	schedule := func(kind string, e *EmailSchedule) {
		if e.Active && e.ScheduledTime == "" {
			e.ScheduledTime = FormatTime(now.Add(time.Duration(delayHours[kind]) * time.Hour))
		}
	}
	if rank >= RecipientDelivered.Rank() {
		schedule("postDelivery", &r.Emails.PostDelivery)
	}
	if rank >= RecipientAcknowledged.Rank() {
		schedule("postAcknowledgement", &r.Emails.PostAcknowledgement)
	}
	r.Status, r.UpdatedAt = to, now
	return nil
}

// AddFeedback records a rating (when not empty) and a message (when not
// nil) at now. A pending recipient, who has not been invited yet, cannot
// give feedback (CONFLICT).
func (r *Recipient) AddFeedback(rating string, msg *FeedbackMessage, now time.Time) error {
	if r.Status == RecipientPending {
		return Errorf(CodeConflict, "recipient %q has not been invited yet, so it cannot have feedback", r.RecipientID)
	}
	if msg != nil && len(r.Feedback.Message) >= MaxFeedbackMessages {
		return Errorf(CodeConflict, "recipient %q already has %d feedback messages, the most kept", r.RecipientID, MaxFeedbackMessages)
	}
	if rating != "" {
		r.Feedback.Rating = &Rating{Value: rating, SubmittedAt: now}
	}
	if msg != nil {
		m := *msg
		m.SubmittedAt = now
		r.Feedback.Message = append(r.Feedback.Message, m)
	}
	r.UpdatedAt = now
	return nil
}

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

// AddedRecipient is the response of add-recipient (the OpenAPI schema
// AddedRecipient), all fields required.
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

// FormatTime is the stored and shown form of a time: RFC 3339 UTC with
// milliseconds.
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func joinStatuses(ss []RecipientStatus) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

// ValidateFeedback checks a feedback submission, the same wherever it
// comes from (the sender-side endpoint, the recipient's landing page): a
// rating among RatingValues, a message (when not nil, trimmed in place, its
// type "text" when empty) with a text or a URL, or both. The error is
// VALIDATION_FAILED naming the field (rating, message, message.type,
// message.text, message.url).
func ValidateFeedback(rating string, msg *FeedbackMessage) error {
	var p Problems
	if rating == "" && msg == nil {
		p.Add("rating", "rating or message is required")
	}
	if rating != "" && !slices.Contains(RatingValues, rating) {
		p.Add("rating", "must be one of "+strings.Join(RatingValues, ", "))
	}
	if msg != nil {
		msg.Type, msg.Text, msg.URL = strings.TrimSpace(msg.Type), strings.TrimSpace(msg.Text), strings.TrimSpace(msg.URL)
		if msg.Type == "" {
			msg.Type = "text"
		}
		switch {
		case tooLong(msg.Type, 50):
			p.Add("message.type", "must be at most 50 characters")
		case msg.Text == "" && msg.URL == "":
			p.Add("message", "needs a text or a url")
		case tooLong(msg.Text, 2000):
			p.Add("message.text", "must be at most 2000 characters")
		case msg.URL != "" && !ValidURL(msg.URL):
			p.Add("message.url", "must be an http(s) URL")
		}
	}
	return p.Err()
}
