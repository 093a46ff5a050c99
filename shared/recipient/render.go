package recipient

import (
	"html"
	"strings"

	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
)

// RenderEmails fills the subject and HTML of each of the recipient's
// emails from emails, the template's emails by kind, with the recipient's
// values (its name, company, campaign and page URLs). Kinds emails lacks
// are left as they are. A recipient's emails are rendered from its
// template's text whenever they are read, so a stored recipient need not
// carry them.
//
// The shipped email is the one exception: when emails lack it, it is
// rendered from ShippedEmail, the service's own words, since templates
// written before it existed have none; only once it is active (the gift
// shipped), so a recipient's emails show no shipment before there is one.
func (r *Recipient) RenderEmails(emails map[string]gifting.EmailTemplate) {
	subject, html := r.placeholders(false), r.placeholders(true)
	l := r.Lang() // the service's own texts in the recipient's language; a tenant's as written
	for _, kind := range gifting.EmailKinds {
		t, ok := emails[kind]
		if !ok && kind == "shipped" && r.Emails.Shipped.Active {
			t, ok = ShippedEmail, true
		}
		if kind == "postDelivery" && r.Emails.PostDelivery.Active && giftcodes.Assigned(r.ShipmentInfo) != "" {
			t, ok = digitalDeliveredEmail(t, ok), true // a digital gift's (activateDelivered)
		}
		if !ok {
			continue
		}
		e := r.Emails.Kind(kind)
		e.Subject = fill(l.Stock(t.Subject), subject)
		e.HTML = fill(l.Stock(t.HTML), html)
	}
}

// StripEmails empties the subject and HTML of each of the recipient's
// emails: what RenderEmails gives back from the template.
func (r *Recipient) StripEmails() {
	for _, kind := range gifting.EmailKinds {
		e := r.Emails.Kind(kind)
		e.Subject, e.HTML = "", ""
	}
}

// placeholders are the values of a template text's placeholders for the
// recipient, by name. In HTML every value is escaped, so a name such as
// <script> shows as text. Subjects are plain text: line breaks are
// removed so a value cannot add a mail header. The shipment's carrier and
// tracking number are "" before it ships; trackingUrl is its https
// tracking link (TrackingURL), or the landing page, which shows the
// shipment, when it has none.
func (r *Recipient) placeholders(isHTML bool) map[string]string {
	esc := func(s string) string {
		if isHTML {
			return html.EscapeString(s)
		}
		return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	}
	first := r.ContactDetails.FirstName
	if first == "" {
		first = r.Lang().T("there")
	}
	carrier, _ := r.ShipmentInfo["carrier"].(string)
	number, _ := r.ShipmentInfo["trackingNumber"].(string)
	track := r.TrackingURL()
	if track == "" {
		track = r.URLs.LandingPage
	}
	return map[string]string{
		"firstName":      esc(first),
		"lastName":       esc(r.ContactDetails.LastName),
		"company":        esc(r.ContactDetails.Company),
		"campaignName":   esc(r.CampaignName),
		"landingPageUrl": esc(r.URLs.LandingPage),
		"claimPageUrl":   esc(r.URLs.ClaimPage),
		"carrier":        esc(carrier),
		"trackingNumber": esc(number),
		"trackingUrl":    esc(track),
	}
}

// ShippedEmail is the shipped email of a template that has none: the
// carrier, the tracking number and the tracking link, sent as soon as the
// gift ships (DelayHours 0).
var ShippedEmail = gifting.EmailTemplate{
	Subject: "{{firstName}}, your gift is on its way",
	HTML: `<p>Hi {{firstName}},</p>` +
		`<p>Your gift from {{campaignName}} has shipped.</p>` +
		`<p>Carrier: {{carrier}}<br>Tracking number: {{trackingNumber}}</p>` +
		`<p><a href="{{trackingUrl}}">Track your parcel</a></p>` +
		`<p>The page of your gift shows where it is: <a href="{{landingPageUrl}}">{{landingPageUrl}}</a></p>`,
}

// TrackingURL is the recipient's tracking link when it is an https URL,
// "" otherwise: the link the emails and the landing page show. A
// fulfiller may record an http link, but a recipient is not sent to a
// page whose content anyone on the way could change.
func (r *Recipient) TrackingURL() string {
	u := r.SelectedGift.TrackingLink
	if u == "" {
		u, _ = r.ShipmentInfo["trackingUrl"].(string)
	}
	if !strings.HasPrefix(u, "https://") || !gifting.ValidURL(u) {
		return ""
	}
	return u
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
