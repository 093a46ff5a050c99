package scheduler_test

import (
	"context"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestInvitationArrivesBrandedWithTheNote: the invitation the SES
// emulator receives carries the organization's branding (logo, From name,
// Reply-To, footer), the campaign's note with the recipient's values
// filled and escaped, the gift's picture and the landing page button, a
// plain-text part saying the same, all under 100 KB; a recipient added
// with its own note and sender name gets those instead.
func TestInvitationArrivesBrandedWithTheNote(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	ctx := context.Background()
	if _, err := access.NewApp(e.store).SetBranding(ctx, e.orgID, gifting.Branding{DisplayName: "Acme", LogoURL: "https://cdn.acme.test/logo.png",
		BrandColor: "#0b5394", SenderName: "Ada at Acme", ReplyTo: "ada@acme.test", FooterText: "Acme Inc, 1 Main St"}); err != nil {
		t.Fatal(err)
	}
	c, err := testenv.CreateCampaign(ctx, e.store, e.orgID, campaign.Campaign{Name: "Spring", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{"gift-artisan-coffee"}, EmailTemplateID: "tmpl-meeting-booker", CreditsPerRecipient: 10,
			Message: "{{firstName}}, thank you for {{companyName}}'s trust. {{senderName}}"}})
	if err != nil {
		t.Fatal(err)
	}
	testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Live)
	add := func(name, first, message, sender string) recipient.AddResult {
		res, err := e.svc.Recipients().Add(ctx, recipient.AddInput{OrgID: e.orgID, CampaignID: c.CampaignID, SourceType: "api",
			Contact: gifting.ContactInput{MailID: e.address(name), FirstName: first, CompanyName: "Bits & <Bobs>"}, Message: message, SenderName: sender})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := add("grace", `Grace"><img src=x>`, "", "")
	got := e.received("grace")
	if len(got) != 1 {
		t.Fatalf("%d emails, want the invitation", len(got))
	}
	m := got[0]
	for _, want := range []string{`src="https://cdn.acme.test/logo.png"`, "background-color:#0b5394",
		`Grace&#34;&gt;&lt;img src=x&gt;, thank you for Bits &amp; &lt;Bobs&gt;&#39;s trust. Ada at Acme`,
		`<a href="` + res.Response.LandingPageURL + `" style="display:inline-block`, "Acme Inc, 1 Main St"} {
		if !strings.Contains(m.Body.HTML, want) {
			t.Errorf("HTML part lacks %s", want)
		}
	}
	if strings.Contains(m.Body.HTML, "<img src=x>") {
		t.Error("a first name's markup reached the HTML")
	}
	for _, want := range []string{`Grace"><img src=x>, thank you for Bits & <Bobs>'s trust. Ada at Acme`,
		"See your gift: " + res.Response.LandingPageURL, "Acme Inc, 1 Main St", "Unsubscribe from these emails"} {
		if !strings.Contains(m.Body.Text, want) {
			t.Errorf("text part lacks %q:\n%s", want, m.Body.Text)
		}
	}
	if m.From != `"Ada at Acme" <gifts@example.com>` || len(m.ReplyTo) != 1 || m.ReplyTo[0] != "ada@acme.test" {
		t.Errorf("from %q reply-to %v", m.From, m.ReplyTo)
	}
	if n := len(m.Body.HTML); n >= recipient.MaxEmailBytes {
		t.Errorf("HTML part is %d bytes", n)
	}

	add("bob", "Bob", "Bob, {{senderName}} picked this for you.", "Carol")
	if got := e.received("bob"); len(got) != 1 || !strings.Contains(got[0].Body.HTML, "Bob, Carol picked this for you.") ||
		strings.Contains(got[0].Body.HTML, "trust.") {
		t.Errorf("the recipient's own note was not sent: %d emails", len(got))
	}
}

// TestPreviewIsWhatIsSent: the preview of the campaign's invitation (the
// endpoint's use case) is the email the SES emulator received for a
// recipient with the sample's name and company, but for the page links
// and the unsubscribe footer the mailer adds: the same subject, both
// parts, From name and Reply-To.
func TestPreviewIsWhatIsSent(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	ctx := context.Background()
	if _, err := access.NewApp(e.store).SetBranding(ctx, e.orgID, gifting.Branding{SenderName: "Ada at Acme", ReplyTo: "ada@acme.test",
		FooterText: "Acme Inc, 1 Main St", LogoURL: "https://cdn.acme.test/logo.png"}); err != nil {
		t.Fatal(err)
	}
	c, err := testenv.CreateCampaign(ctx, e.store, e.orgID, campaign.Campaign{Name: "Spring", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{"gift-artisan-coffee"}, EmailTemplateID: "tmpl-meeting-booker", CreditsPerRecipient: 10,
			Message: "Thank you, {{firstName}} and everyone at {{companyName}}."}})
	if err != nil {
		t.Fatal(err)
	}
	testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Live)
	res, err := e.svc.Recipients().Add(ctx, recipient.AddInput{OrgID: e.orgID, CampaignID: c.CampaignID, SourceType: "api",
		Contact: gifting.ContactInput{MailID: e.address("grace"), FirstName: recipient.SampleFirstName, LastName: recipient.SampleLastName,
			CompanyName: recipient.SampleCompany}})
	if err != nil {
		t.Fatal(err)
	}
	got := e.received("grace")
	if len(got) != 1 {
		t.Fatalf("%d emails, want the invitation", len(got))
	}
	sent := got[0]
	tmpl, err := e.store.Template(ctx, e.orgID, "tmpl-meeting-booker")
	if err != nil {
		t.Fatal(err)
	}
	g := tmpl.TemplateData.Goal
	preview, err := e.svc.Recipients().Preview(ctx, e.orgID, c.CampaignID, "addressConfirmation",
		recipient.PreviewTemplate{Emails: tmpl.TemplateData.Emails, TemplateOrg: tmpl.OrganizationID, Logo: g.Logo, LogoColor: g.LogoColor})
	if err != nil {
		t.Fatal(err)
	}
	r := e.recipient(c.CampaignID, res.Response.RecipientID)
	unsubscribe := "https://gifts.test/unsubscribe/" + r.LandingPageID
	links := strings.NewReplacer(res.Response.LandingPageURL, "https://gifts.test/gift/"+recipient.SamplePageID,
		res.Response.ClaimPageURL, "https://gifts.test/claim/"+recipient.SamplePageID)
	html := links.Replace(strings.Replace(sent.Body.HTML, `<p style="font-size:12px;color:#666"><a href="`+unsubscribe+`">Unsubscribe</a> from these emails.</p>`, "", 1))
	text := links.Replace(strings.TrimSuffix(sent.Body.Text, "\n\nUnsubscribe from these emails: "+unsubscribe+"\n"))
	if html != preview.HTML {
		t.Errorf("sent HTML differs from the preview:\nsent    %s\npreview %s", html, preview.HTML)
	}
	if text != strings.TrimRight(preview.Text, "\n") {
		t.Errorf("sent text differs from the preview:\nsent    %q\npreview %q", text, preview.Text)
	}
	if sent.Subject != preview.Subject || sent.From != `"Ada at Acme" <gifts@example.com>` || preview.FromName != "Ada at Acme" ||
		preview.ReplyTo != "ada@acme.test" || len(sent.ReplyTo) != 1 || sent.ReplyTo[0] != preview.ReplyTo {
		t.Errorf("sent %q from %q reply-to %v; preview %q from %q reply-to %q", sent.Subject, sent.From, sent.ReplyTo,
			preview.Subject, preview.FromName, preview.ReplyTo)
	}
	if !strings.Contains(preview.HTML, "Thank you, Grace and everyone at Example Co.") {
		t.Error("the preview lacks the campaign's note")
	}
}
