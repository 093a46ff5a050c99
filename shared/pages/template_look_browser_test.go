package pages_test

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestBrowserTemplateLook opens, in a real Chromium, the landing page and
// the claim form of a campaign whose template sets its own logo and
// colour: the buttons are painted in the template's colour, the logo is
// the template's, and axe-core finds no WCAG 2.1 AA violation (the
// colour passed the branding's contrast rule when the template was
// saved).
func TestBrowserTemplateLook(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	axe := axeSource(t)
	ctx := context.Background()
	f, ts := demoServer(t)
	tmpl, err := catalog.NewApp(f.s).CreateTemplate(ctx, f.orgID, catalog.Template{TemplateName: "Q4",
		TemplateData: catalog.TemplateData{Goal: catalog.Goal{Name: "Q4", Logo: "https://gifts.example.com/q4.png", LogoColor: "#6d28d9"}}})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := testenv.Campaigns(f.s).Create(ctx, f.orgID, campaign.Campaign{Name: "Q4 thanks", CreatedBy: "user-1", CampaignData: campaign.Data{
		EmailTemplateID: tmpl.TemplateID, GiftIDs: []string{f.cheap.GiftID, f.dear.GiftID}, CreditsPerRecipient: f.creditsPerPerson, PriceSet: true}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	added, err := testenv.Recipients(f.s).Write(ctx, recipient.AddInput{OrgID: f.orgID, CampaignID: c.CampaignID, SourceType: "api",
		PublicBaseURL: ts.URL, Contact: gifting.ContactInput{MailID: "maya@example.com", FirstName: "Maya"}})
	if err != nil {
		t.Fatal(err)
	}

	bctx, run := browse(t, bin)
	var paint, src string
	run("open the landing page", chromedp.Navigate(ts.URL+"/gift/"+added.Recipient.LandingPageID),
		chromedp.WaitVisible(`//a[contains(., "Choose my gift")]`),
		chromedp.Evaluate(`getComputedStyle(document.querySelector("a.button")).backgroundColor`, &paint),
		chromedp.Evaluate(`document.querySelector("img.logo")?.getAttribute("src") ?? ""`, &src))
	if paint != "rgb(109, 40, 217)" || src != "https://gifts.example.com/q4.png" {
		t.Errorf("landing page's button painted %q, logo %q; want the template's #6d28d9 and logo", paint, src)
	}
	checkAccessible(bctx, t, axe, "landing in the template's colour")
	run("open the claim form", chromedp.Click(`//a[contains(., "Choose my gift")]`),
		chromedp.WaitVisible(`//button[contains(., "Confirm")]`))
	checkAccessible(bctx, t, axe, "claim form in the template's colour")
}
