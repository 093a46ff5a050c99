package recipient

import (
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

// brandedContext is a mail context with every branding field set, a
// template colour and two gifts (one image a path of the service's own
// assets, one an external https image).
func brandedContext() MailContext {
	return MailContext{
		Org: gifting.Organization{OrgID: "acme", OrgName: "Acme Inc", Branding: &gifting.Branding{DisplayName: "Acme", LogoURL: "https://cdn.acme.test/logo.png",
			BrandColor: "#0b5394", SenderName: "Ada at Acme", ReplyTo: "ada@acme.test", FooterText: "Acme Inc, 1 Main St"}},
		TemplateOrg: "acme", LogoColor: "#1a2b3c",
		Message: "Thanks for a great year, {{firstName}} at {{companyName}}! — {{senderName}}",
		Gifts: []gifting.Gift{{Name: "Coffee", ImageURLs: []string{"/assets/gifts/coffee.png"}},
			{Name: "Socks", ImageURLs: []string{"https://img.test/socks.png"}}},
		PublicBaseURL: "https://gifts.test",
	}
}

// TestInvitationIsBrandedAndPersonal: the invitation carries the
// organization's logo, the template's colour on its button, the note with
// the placeholders filled and every value escaped, both gifts' images
// (absolute), one button to the landing page, the footer, the From name
// and Reply-To; the text part says the same; it is a mail-client document
// (tables, inline styles, no style sheet, no script) under 100 KB.
func TestInvitationIsBrandedAndPersonal(t *testing.T) {
	r := testRecipient(t, `Jo<script>alert(1)</script>`)
	r.ContactDetails.Company = "Spring & Co"
	m, err := ComposeEmail(r, "addressConfirmation", brandedContext())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<img src="https://cdn.acme.test/logo.png" alt="Acme"`,
		`background-color:#1a2b3c`,
		`Thanks for a great year, Jo&lt;script&gt;alert(1)&lt;/script&gt; at Spring &amp; Co! — Ada at Acme`,
		`src="https://gifts.test/assets/gifts/coffee.png" alt="Coffee"`, `src="https://img.test/socks.png"`,
		`<a href="https://gifts.test/gift/lp" style="display:inline-block;background-color:#1a2b3c;color:#ffffff;`,
		`Acme Inc, 1 Main St`, `<table role="presentation"`,
	} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("HTML lacks %s", want)
		}
	}
	for _, banned := range []string{"<script", "<link", "<style", "@import"} {
		if strings.Contains(m.HTML, banned) {
			t.Errorf("HTML holds %s", banned)
		}
	}
	if n := strings.Count(m.HTML, `<a href=`); n != 2 { // the template's own link, and the button
		t.Errorf("%d links, want the template's and the one button", n)
	}
	for _, want := range []string{"Acme\n", "Thanks for a great year, Jo<script>alert(1)</script> at Spring & Co! — Ada at Acme",
		"- Coffee", "- Socks", "See your gift: https://gifts.test/gift/lp", "Acme Inc, 1 Main St"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("text part lacks %q:\n%s", want, m.Text)
		}
	}
	if m.FromName != "Ada at Acme" || m.ReplyTo != "ada@acme.test" || m.Subject != `Jo<script>alert(1)</script>, a gift` {
		t.Errorf("from %q reply-to %q subject %q", m.FromName, m.ReplyTo, m.Subject)
	}
	if len(m.HTML) >= MaxEmailBytes {
		t.Errorf("HTML is %d bytes, Gmail clips at 102 KB", len(m.HTML))
	}
}

// TestRecipientsOwnNoteWins: a note given when the recipient was added
// replaces the campaign's, signed by its own sender name; without any
// note or branding, the email still has its one button and the
// organization's name, in the service's colour.
func TestRecipientsOwnNoteWins(t *testing.T) {
	r := testRecipient(t, "Jane")
	r.Personalization.Message, r.Personalization.SenderName = "Hi {{firstName}}, from {{senderName}}", "Bob"
	m, err := ComposeEmail(r, "addressConfirmation", brandedContext())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.HTML, "Hi Jane, from Bob") || strings.Contains(m.HTML, "great year") {
		t.Errorf("the recipient's own note not used: %s", m.HTML)
	}
	// A service-catalog template's colour does not replace the brand's.
	mc := brandedContext()
	mc.TemplateOrg = gifting.CatalogOrgID
	if m, _ := ComposeEmail(r, "addressConfirmation", mc); !strings.Contains(m.HTML, "background-color:#0b5394") {
		t.Error("a catalog template's colour replaced the organization's")
	}
	plain, err := ComposeEmail(testRecipient(t, "Jane"), "reminder1", MailContext{Org: gifting.Organization{OrgName: "Acme Inc"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plain.HTML, ">Acme Inc</p>") || !strings.Contains(plain.HTML, "background-color:#b5452b") ||
		strings.Contains(plain.HTML, "border-left:4px") || plain.ReplyTo != "" || plain.FromName != "Acme Inc" {
		t.Errorf("unbranded reminder: from %q reply-to %q\n%s", plain.FromName, plain.ReplyTo, plain.HTML)
	}
}

// TestEveryEmailKindHasALayout: each kind of email is composed, with its
// button; a kind with no layout is an error, not an unbranded email.
func TestEveryEmailKindHasALayout(t *testing.T) {
	for _, kind := range gifting.EmailKinds {
		l, ok := EmailLayouts[kind]
		if !ok || l.Button == "" {
			t.Errorf("no layout for %s", kind)
		}
	}
	if _, err := ComposeEmail(testRecipient(t, "Jane"), "newsletter", MailContext{}); err == nil {
		t.Error("an unknown kind composed")
	}
}

// TestCheckNoteRefusesUnknownPlaceholders: the three placeholders pass,
// any other (a typo, spaces inside) is named, as is a note over 1,000
// characters.
func TestCheckNoteRefusesUnknownPlaceholders(t *testing.T) {
	for text, want := range map[string]string{
		"Hi {{firstName}} at {{companyName}}, {{senderName}}": "",
		"Hi {{firstname}}":                     "{{firstname}}",
		"Hi {{ firstName }}":                   "{{ firstName }}",
		"Hi {{lastName}}":                      "{{lastName}}",
		strings.Repeat("x", MaxMessage+1):      "at most 1000",
		"a brace { and }} alone are just text": "",
	} {
		var p gifting.Problems
		CheckNote(&p, "message", text)
		if got := p["message"]; (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%.40q: problem %q, want one naming %q", text, got, want)
		}
	}
}
