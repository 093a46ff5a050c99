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

// TestInvitationInTheRecipientsLanguage: the SES emulator receives a
// French invitation for a contact whose locale is fr (the catalog
// template's subject and text, the button, the unsubscribe footer,
// <html lang="fr">), with the organization's note, campaign name and
// footer exactly as written; a contact without a locale in the same
// campaign gets the English one.
func TestInvitationInTheRecipientsLanguage(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	ctx := context.Background()
	if _, err := access.NewApp(e.store).SetBranding(ctx, e.orgID, gifting.Branding{DisplayName: "Acme", SenderName: "Ada at Acme",
		FooterText: "Acme Inc, 1 Main St"}); err != nil {
		t.Fatal(err)
	}
	note := "{{firstName}}, thank you for a great year. See you in Lyon!"
	c, err := testenv.CreateCampaign(ctx, e.store, e.orgID, campaign.Campaign{Name: "Spring thanks", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{"gift-artisan-coffee"}, EmailTemplateID: "tmpl-meeting-booker", CreditsPerRecipient: 10,
			Message: note}})
	if err != nil {
		t.Fatal(err)
	}
	testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Live)
	add := func(name, first, locale string) recipient.AddResult {
		res, err := e.svc.Recipients().Add(ctx, recipient.AddInput{OrgID: e.orgID, CampaignID: c.CampaignID, SourceType: "api",
			Contact: gifting.ContactInput{MailID: e.address(name), FirstName: first, Locale: locale}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := add("amelie", "Amélie", "fr")
	got := e.received("amelie")
	if len(got) != 1 {
		t.Fatalf("%d emails, want the invitation", len(got))
	}
	m := got[0]
	if m.Subject != "Amélie, un cadeau est en route pour vous" {
		t.Errorf("subject %q, want the template's in French", m.Subject)
	}
	for _, want := range []string{`<html lang="fr">`,
		"Bonjour Amélie, Spring thanks a un cadeau pour vous. Indiquez-nous où l'envoyer\u00a0: ",
		">choisir et confirmer</a>", ">Voir votre cadeau</a>", ">Se désinscrire de ces e-mails</a>",
		"Amélie, thank you for a great year. See you in Lyon!", "Ada at Acme", "Acme Inc, 1 Main St"} {
		if !strings.Contains(m.Body.HTML, want) {
			t.Errorf("HTML part lacks %q", want)
		}
	}
	for _, gone := range []string{"has a gift for you", "See your gift", "Unsubscribe"} {
		if strings.Contains(m.Body.HTML, gone) || strings.Contains(m.Body.Text, gone) {
			t.Errorf("the French email still says %q", gone)
		}
	}
	for _, want := range []string{"Voir votre cadeau: " + res.Response.LandingPageURL, "Amélie, thank you for a great year. See you in Lyon!",
		"Se désinscrire de ces e-mails: "} {
		if !strings.Contains(m.Body.Text, want) {
			t.Errorf("text part lacks %q:\n%s", want, m.Body.Text)
		}
	}
	if r := e.recipient(c.CampaignID, res.Response.RecipientID); r.ContactDetails.Locale != "fr" {
		t.Errorf("the recipient carries locale %q, want fr", r.ContactDetails.Locale)
	}

	add("grace", "Grace", "")
	if got := e.received("grace"); len(got) != 1 || got[0].Subject != "Grace, a gift is on its way to you" ||
		!strings.Contains(got[0].Body.HTML, `<html lang="en">`) || !strings.Contains(got[0].Body.HTML, ">See your gift</a>") {
		t.Errorf("a contact without a locale did not get the English invitation: %d emails", len(got))
	}
}
