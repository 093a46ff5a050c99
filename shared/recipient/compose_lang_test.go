package recipient

import (
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/i18n"
)

// TestTenantWordsStayAsWritten: a German recipient of a tenant's own
// template gets the template's subject and text exactly as the tenant
// wrote them (its words are never translated) in a German layout: the
// button, <html lang>, the unsubscribe label.
func TestTenantWordsStayAsWritten(t *testing.T) {
	r := testRecipient(t, "Jonas")
	r.ContactDetails.Locale = "de-AT"
	r.RenderEmails(map[string]gifting.EmailTemplate{"addressConfirmation": {Subject: "{{firstName}}, a gift",
		HTML: `<p>Hi {{firstName}} from {{campaignName}}: <a href="{{landingPageUrl}}">go</a></p>`}})
	m, err := ComposeEmail(r, "addressConfirmation", brandedContext())
	if err != nil {
		t.Fatal(err)
	}
	if m.Subject != "Jonas, a gift" || !strings.Contains(m.HTML, "Hi Jonas from Spring &amp; Co") {
		t.Errorf("the tenant's words changed: subject %q", m.Subject)
	}
	for _, want := range []string{`<html lang="de">`, ">Zu Ihrem Geschenk</a>"} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("HTML lacks %s", want)
		}
	}
	if !strings.Contains(m.Text, "Zu Ihrem Geschenk: https://gifts.test/gift/lp") || m.UnsubscribeLabel != "Von diesen E-Mails abmelden" {
		t.Errorf("text part or unsubscribe label not German: %q\n%s", m.UnsubscribeLabel, m.Text)
	}
	if en := testRecipient(t, "Jo"); en.Lang().Code() != "en" {
		t.Errorf("a recipient without a locale reads %s", en.Lang().Code())
	}
}

// TestServiceEmailsInTheLanguage: the service's own shipped email goes to
// a Spanish recipient in Spanish, its values filled as in English; and
// every text of the service's own emails is in the catalog, so a change
// to one without its translations fails here.
func TestServiceEmailsInTheLanguage(t *testing.T) {
	r := testRecipient(t, "Ana")
	r.ContactDetails.Locale = "es"
	r.Emails.Shipped.Active = true
	r.ShipmentInfo = map[string]any{"carrier": "Correos", "trackingNumber": "PK123", "trackingUrl": "https://track.test/PK123"}
	r.RenderEmails(nil)
	e := r.Emails.Shipped
	if e.Subject != "Ana, su regalo está en camino" {
		t.Errorf("shipped subject %q", e.Subject)
	}
	for _, want := range []string{"Hola, Ana:", "Su regalo de Spring &amp; Co ya ha salido.", "Transportista: Correos<br>Número de seguimiento: PK123",
		`<a href="https://track.test/PK123">Seguir su paquete</a>`} {
		if !strings.Contains(e.HTML, want) {
			t.Errorf("shipped HTML lacks %s:\n%s", want, e.HTML)
		}
	}
	m, err := ComposeEmail(r, "shipped", brandedContext())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.HTML, ">Seguir su paquete</a>") || !strings.Contains(m.HTML, `<html lang="es">`) {
		t.Error("the shipped email's layout is not Spanish")
	}
	for _, s := range []string{ShippedEmail.Subject, ShippedEmail.HTML, DeliveredEmail.Subject, DeliveredEmail.HTML} {
		if !i18n.Translated(s) {
			t.Errorf("the service's own %q has no translations", s)
		}
	}
	for _, l := range EmailLayouts {
		if !i18n.Translated(l.Button) {
			t.Errorf("button %q has no translations", l.Button)
		}
	}
}
