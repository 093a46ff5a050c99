package recipient

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	htmltemplate "html/template"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/giftcampaign/service/shared/branding"
	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/i18n"
	"github.com/giftcampaign/service/shared/mail"
)

// The recipient emails' layout: a table layout with inline styles, as mail
// clients render it (no style sheet, no script, nothing fetched but the
// images), fluid up to 600 px so it fits a phone without media queries;
// and its plain-text twin.
var (
	//go:embed emails/layout.html
	layoutHTML string
	//go:embed emails/layout.txt
	layoutText string

	htmlLayout = htmltemplate.Must(htmltemplate.New("email").Parse(layoutHTML))
	textLayout = texttemplate.Must(texttemplate.New("email").Parse(layoutText))
)

// MaxEmailBytes is the size an email's HTML stays under: Gmail clips a
// message whose HTML is over 102 KB.
const MaxEmailBytes = 100_000

// maxEmailGifts bounds the gifts an email pictures.
const maxEmailGifts = 3

// MailContext is what a recipient's email shows besides the recipient:
// who sends it (the organization and its branding), the template's goal
// logo and colour ("" when unset) and the organization owning the
// template, the campaign's default note and its gifts, and the public
// base URL a gift image given as a path (/assets/gifts/…) is made
// absolute with.
type MailContext struct {
	Org                          gifting.Organization
	TemplateOrg, Logo, LogoColor string
	CampaignName, Message        string
	Gifts                        []gifting.Gift
	PublicBaseURL                string
}

// EmailLayout is what one kind of email shows besides its text: its one
// button, the page the button opens, and whether the sender's note and
// the gifts are shown.
type EmailLayout struct {
	Button      string
	URL         func(r Recipient) string
	Note, Gifts bool
}

// EmailLayouts are the layouts of the kinds of email (gifting.EmailKinds):
// a new kind of email is a new entry. The invitation and its reminders
// lead to the landing page, which shows the gifts and the way to claim.
var EmailLayouts = map[string]EmailLayout{
	"addressConfirmation": {Button: "See your gift", URL: landingURL, Note: true, Gifts: true},
	"reminder1":           {Button: "See your gift", URL: landingURL, Note: true, Gifts: true},
	"reminder2":           {Button: "See your gift", URL: landingURL, Note: true, Gifts: true},
	"shipped":             {Button: "Track your parcel", URL: trackingURL, Gifts: true},
	"postDelivery":        {Button: "Tell us how you like it", URL: landingURL, Gifts: true},
	"postAcknowledgement": {Button: "See your gift", URL: landingURL},
}

func landingURL(r Recipient) string { return r.URLs.LandingPage }

func trackingURL(r Recipient) string { return cmp.Or(r.TrackingURL(), r.URLs.LandingPage) }

// emailView is what the layouts render. Body is the template's HTML with
// the recipient's values filled and escaped (RenderEmails): the tenant's
// own markup, trusted as the tenant's.
type emailView struct {
	Lang                           string // <html lang>
	Subject, Preheader, Name, Logo string
	Color                          htmltemplate.CSS
	Body                           htmltemplate.HTML
	BodyText, Note, SenderName     string
	Gifts                          []emailGift
	Button, ButtonURL, Footer      string
	// Code is a digital gift's code in its delivered email, nil but for an
	// organization that opted in (CodeInEmail).
	Code *giftcodes.Secret
	// CodeLabels are the words beside the code, in the recipient's language.
	CodeLabels struct{ Code, PIN, Redeem string }
}

type emailGift struct{ Name, ImageURL string }

// ComposeEmail is r's email of kind as it goes out and as the preview
// shows it: its subject and text rendered from the template
// (RenderEmails), in the branded layout with the sender's note, the
// gifts and one button; the plain-text part says the same. The From name
// and Reply-To are the organization's branding.
func ComposeEmail(r Recipient, kind string, mc MailContext) (mail.Message, error) {
	return composeEmail(r, kind, mc, nil)
}

// CodeInEmail reports whether r's email of kind carries its digital
// gift's code: the delivered (post-delivery) email of a recipient holding
// a code, from an organization that opted in; any other email, or any
// other organization's, only links the landing page.
func CodeInEmail(r Recipient, kind string, org gifting.Organization) bool {
	return kind == "postDelivery" && giftcodes.Assigned(r.ShipmentInfo) != "" &&
		org.Branding != nil && org.Branding.DigitalCodesInEmail
}

// composeEmail is ComposeEmail, with code (nil for none) shown under the
// text.
func composeEmail(r Recipient, kind string, mc MailContext, code *giftcodes.Secret) (mail.Message, error) {
	layout, ok := EmailLayouts[kind]
	e := r.Emails.Kind(kind)
	if !ok || e == nil {
		return mail.Message{}, fmt.Errorf("no layout for email kind %q", kind)
	}
	look := mc.Look()
	l := r.Lang()
	v := emailView{Lang: l.Code(), Subject: e.Subject, Name: look.Name, Logo: look.Logo, Color: htmltemplate.CSS(look.Color),
		Body: htmltemplate.HTML(e.HTML), BodyText: strings.TrimSpace(mail.PlainText(e.HTML)),
		SenderName: r.SenderName(look.SenderName), Button: l.Text(layout.Button), ButtonURL: layout.URL(r), Footer: look.Footer, Code: code}
	v.CodeLabels.Code, v.CodeLabels.PIN, v.CodeLabels.Redeem = l.Text("Your code:"), l.Text("PIN:"), l.Text("Redeem it here")
	if layout.Note {
		v.Note = r.Note(mc.Message, look.SenderName)
	}
	v.Preheader = cmp.Or(firstLine(v.Note), v.BodyText)
	if layout.Gifts {
		v.Gifts = r.emailGifts(mc)
	}
	var h, t strings.Builder
	if err := htmlLayout.Execute(&h, v); err != nil {
		return mail.Message{}, fmt.Errorf("render email %s: %w", kind, err)
	}
	if err := textLayout.Execute(&t, v); err != nil {
		return mail.Message{}, fmt.Errorf("render email %s: %w", kind, err)
	}
	m := mail.Message{To: r.ContactDetails.Email, Subject: e.Subject, HTML: h.String(), Text: t.String(), Kind: kind,
		FromName: look.SenderName, ReplyTo: look.ReplyTo}
	if l.Tag != i18n.Supported[0] {
		m.UnsubscribeLabel = l.Text("Unsubscribe from these emails")
	}
	return m, nil
}

// Lang is the language of r's emails: its contact's locale when the
// emails are written in it, else English (i18n.Choose; an email has no
// browser to ask).
func (r Recipient) Lang() i18n.Lang {
	return i18n.For(i18n.Choose(r.ContactDetails.Locale, ""))
}

// Look is the branding of mc's emails: the organization's, with the
// template's logo and colour over it when the template is the
// organization's own. The service catalog's templates are shared by every
// tenant, so their goal icons and colours do not replace a tenant's brand.
func (mc MailContext) Look() branding.Look {
	if mc.TemplateOrg != mc.Org.OrgID {
		return branding.Resolve(mc.Org, "", "")
	}
	return branding.Resolve(mc.Org, mc.Logo, mc.LogoColor)
}

// firstLine is the first line of s, at most 120 characters.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 120 {
		return string(r[:119]) + "…"
	}
	return s
}

// emailGifts are the gifts r's email pictures: the one it chose once it
// has, else the campaign's (at most maxEmailGifts), each with its first
// image made safe to load (imageFor).
func (r Recipient) emailGifts(mc MailContext) []emailGift {
	if r.SelectedGift.GiftID != "" {
		return []emailGift{{Name: r.SelectedGift.Name, ImageURL: imageFor(r.SelectedGift.ImageURL, mc.PublicBaseURL)}}
	}
	var out []emailGift
	for _, g := range mc.Gifts {
		if len(out) == maxEmailGifts {
			break
		}
		img := ""
		if len(g.ImageURLs) > 0 {
			img = imageFor(g.ImageURLs[0], mc.PublicBaseURL)
		}
		out = append(out, emailGift{Name: g.Name, ImageURL: img})
	}
	return out
}

// imageFor is an image URL an email may load: an https one as it is, an
// http one over https (as the pages ask for it), a path of the service's
// own assets made absolute with base; "" for anything else.
func imageFor(u, base string) string {
	switch {
	case strings.HasPrefix(u, "https://"):
		return u
	case strings.HasPrefix(u, "http://"):
		return "https://" + strings.TrimPrefix(u, "http://")
	case strings.HasPrefix(u, "/assets/") && base != "":
		return strings.TrimRight(base, "/") + u
	}
	return ""
}

// Compose is r's email of kind as it goes out (ComposeEmail), with what
// the email shows besides r read from the store: its organization's
// branding, its campaign's note and gifts, its template's logo and colour.
// The context is kept for MailContextTTL, so a change of branding, note
// or gifts reaches the emails of a running process within that time.
//
// The delivered email of a digital gift carries its code when the
// organization opted in (CodeInEmail): opened here, as the email goes
// out, and kept nowhere.
func (a *App) Compose(ctx context.Context, orgID string, r Recipient, kind string) (mail.Message, error) {
	mc, err := a.mailContext(ctx, orgID, r)
	if err != nil {
		return mail.Message{}, err
	}
	var code *giftcodes.Secret
	if CodeInEmail(r, kind, mc.Org) {
		if code, err = a.openCode(ctx, r); err != nil {
			return mail.Message{}, err
		}
	}
	return composeEmail(r, kind, mc, code)
}

// mailContext returns the MailContext of r's campaign: this process's
// copy (MailContextTTL), or read once however many sends ask at once.
func (a *App) mailContext(ctx context.Context, orgID string, r Recipient) (MailContext, error) {
	k := orgID + "\x00" + r.CampaignID
	mc, ok := a.mailContexts.Get(k)
	if !ok {
		v, err, _ := a.loads.Do(k, func() (any, error) {
			if mc, ok := a.mailContexts.Get(k); ok {
				return mc, nil // filled while this call waited
			}
			mc, err := a.store.MailContext(ctx, orgID, r.CampaignID)
			if err != nil {
				return nil, err
			}
			mc.PublicBaseURL = a.cfg.PublicBaseURL
			a.mailContexts.Add(k, mc)
			return mc, nil
		})
		if err != nil {
			return MailContext{}, err
		}
		mc = v.(MailContext)
	}
	return mc, nil
}

// MailContextTTL is how long a process keeps a campaign's MailContext.
const MailContextTTL = time.Minute
