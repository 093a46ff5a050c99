// Package sandbox is what makes an organization's sandbox twin
// (gifting.SandboxOrgID) differ from the live organization: its emails are
// captured instead of sent (Mailer) and read back (App.Emails), and its
// wallet of free credits can be reset (App.Reset). Everything else a test
// key does runs the live code over the twin's own items.
package sandbox

import (
	"context"
	"time"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
)

// EmailKept is how long a captured email is kept (the table's TTL then
// deletes it).
const EmailKept = 7 * 24 * time.Hour

// Email is a captured email as composed for sending.
type Email struct {
	EmailID     string    `json:"emailId"`
	To          string    `json:"to"`
	Subject     string    `json:"subject"`
	HTML        string    `json:"html"`
	Text        string    `json:"text"`
	Kind        string    `json:"kind"`
	CampaignID  string    `json:"campaignId"`
	RecipientID string    `json:"recipientId"`
	SentAt      time.Time `json:"sentAt"`
}

// EmailPage is a page of captured emails, newest first; Next is the
// cursor of the next page ("" on the last).
type EmailPage struct {
	Items []Email `json:"items"`
	Next  string  `json:"nextCursor"`
}

// Store is what the sandbox needs of storage.
type Store interface {
	Now() time.Time
	NewID() string
	// CaptureEmail keeps e for orgID until expires.
	CaptureEmail(ctx context.Context, orgID string, e Email, expires time.Time) error
	// CapturedEmails reads up to limit of orgID's captured emails, newest
	// first, older than the email after ("" from the newest), and
	// whether more follow.
	CapturedEmails(ctx context.Context, orgID, after string, limit int) (emails []Email, more bool, err error)
}

// Mailer sends a live organization's emails through Live and captures a
// sandbox's (Store.CaptureEmail): a sandbox's email never reaches the
// mail provider. It is the only mailer of the service (service.New wraps
// the configured one), so every path that sends an email captures a
// sandbox's alike.
type Mailer struct {
	Live  mail.Mailer
	Store Store
}

var _ mail.Mailer = Mailer{}

// SendEmail sends m, or captures it when it is a sandbox's.
func (s Mailer) SendEmail(ctx context.Context, m mail.Message) (mail.Sent, error) {
	if !gifting.IsSandboxOrg(m.OrgID) {
		return s.Live.SendEmail(ctx, m)
	}
	now := s.Store.Now()
	text := m.Text
	if text == "" {
		text = mail.PlainText(m.HTML) // what the live mailer sends as the text part
	}
	sentAt := m.SentAt
	if sentAt.IsZero() {
		sentAt = now
	}
	e := Email{EmailID: s.Store.NewID(), To: m.To, Subject: m.Subject, HTML: m.HTML, Text: text, Kind: m.Kind,
		CampaignID: m.CampaignID, RecipientID: m.RecipientID, SentAt: sentAt}
	if err := s.Store.CaptureEmail(ctx, m.OrgID, e, now.Add(EmailKept)); err != nil {
		return mail.Sent{}, err
	}
	return mail.Sent{MessageID: "sandbox-" + e.EmailID}, nil
}

// App is the sandbox's own use cases.
type App struct {
	store      Store
	wallets    *wallet.App
	recipients *recipient.App
}

// NewApp returns the use cases over store, the wallets' use cases and the
// recipients' (with the service's mailer).
func NewApp(store Store, wallets *wallet.App, recipients *recipient.App) *App {
	return &App{store: store, wallets: wallets, recipients: recipients}
}

// Advance walks a sandbox's recipient to status through the live path's
// own use cases (recipient.App.Advance). Errors: TEST_KEY_REQUIRED (a
// live key), and Advance's.
func (a *App) Advance(ctx context.Context, p gifting.Principal, campaignID, recipientID string, status gifting.RecipientStatus) (recipient.Recipient, error) {
	if err := access.RequireTestKey(p); err != nil {
		return recipient.Recipient{}, err
	}
	if campaignID == "" {
		var problems gifting.Problems
		problems.Add("campaignId", "is required: the campaign of the recipient")
		return recipient.Recipient{}, problems.Err()
	}
	return a.recipients.Advance(ctx, p.OrgID, campaignID, recipientID, status)
}

// MaxEmailPage bounds a page of captured emails.
const MaxEmailPage = 100

// Emails returns a page of the captured emails of a sandbox's principal p,
// newest first, after the cursor after (an email id, "" from the newest).
// Errors: TEST_KEY_REQUIRED (a live key), VALIDATION_FAILED (cursor,
// limit).
func (a *App) Emails(ctx context.Context, p gifting.Principal, after string, limit int) (EmailPage, error) {
	if err := access.RequireTestKey(p); err != nil {
		return EmailPage{}, err
	}
	var problems gifting.Problems
	if after != "" && !gifting.IsNewID(after) {
		problems.Add("cursor", "must be a nextCursor of a previous page")
	}
	if limit < 1 || limit > MaxEmailPage {
		problems.Add("limit", "must be from 1 to 100")
	}
	if err := problems.Err(); err != nil {
		return EmailPage{}, err
	}
	emails, more, err := a.store.CapturedEmails(ctx, p.OrgID, after, limit)
	if err != nil {
		return EmailPage{}, err
	}
	page := EmailPage{Items: emails}
	if page.Items == nil {
		page.Items = []Email{}
	}
	if more && len(emails) > 0 {
		page.Next = emails[len(emails)-1].EmailID
	}
	return page, nil
}

// Reset brings the wallet of a sandbox's principal p back to
// access.SandboxCredits through the wallet's own ledger path (a top-up of
// what it lacks, or a debit of what it holds over), so its ledger still
// sums to its balance. The sandbox's data stays. Errors: TEST_KEY_REQUIRED
// (a live key).
func (a *App) Reset(ctx context.Context, p gifting.Principal) (wallet.Wallet, error) {
	if err := access.RequireTestKey(p); err != nil {
		return wallet.Wallet{}, err
	}
	return a.wallets.ResetTo(ctx, p.OrgID, access.SandboxCredits, "sandbox reset")
}
