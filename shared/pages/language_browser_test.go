package pages_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestBrowserGermanRecipient opens the pages of a recipient whose contact
// locale is de-AT in a real Chromium whose own language is English: the
// landing page and the claim form are in German (<html lang="de">, the
// greeting, the headings, the buttons, the form's labels and its field
// errors), the organization's own texts (campaign name and description,
// gift names) stay as written, and axe-core finds no WCAG 2.1 AA
// violation. With SCREENSHOTS set it saves the German landing page
// (`make screenshots`).
func TestBrowserGermanRecipient(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	axe := axeSource(t)
	f, ts := demoServer(t)
	added, err := testenv.Recipients(f.s).Write(context.Background(), recipient.AddInput{OrgID: f.orgID, CampaignID: f.campaign,
		SourceType: "api", PublicBaseURL: ts.URL,
		Contact: gifting.ContactInput{MailID: "lena@example.com", FirstName: "Lena", LastName: "Huber", Locale: "de-AT"}})
	if err != nil {
		t.Fatal(err)
	}

	bctx, run := browse(t, bin)
	var lang, heading, body string
	run("open the landing page", chromedp.Navigate(ts.URL+"/gift/"+added.Recipient.LandingPageID),
		chromedp.WaitVisible(`//a[contains(., "Geschenk auswählen")]`),
		chromedp.AttributeValue("html", "lang", &lang, nil), chromedp.Text("h1", &heading), chromedp.Text("main", &body),
		screenshots("8-german-landing"))
	checkAccessible(bctx, t, axe, "German landing")
	if lang != "de" || heading != "Hallo Lena, Sie haben ein Geschenk!" {
		t.Errorf("landing page lang %q, heading %q; want de and the German greeting", lang, heading)
	}
	// The header is set in capitals by the style sheet, which innerText
	// follows.
	if h := strings.ToLower(body); !strings.Contains(h, "ein geschenk von org acme · spring thanks") {
		t.Errorf("German landing page's header lacks the German \"from\" and the campaign's name as written:\n%s", body)
	}
	for _, want := range []string{"Thank you for a great year!", "Wählen Sie eines dieser Geschenke",
		"Coffee", "Headphones", "Nichts für Sie?", "Nein, danke", "Diese Seite ist nur für Sie bestimmt"} {
		if !strings.Contains(body, want) {
			t.Errorf("German landing page lacks %q:\n%s", want, body)
		}
	}
	for _, english := range []string{"you have a gift", "choose one of these gifts", "no thanks", "a gift from"} {
		if strings.Contains(strings.ToLower(body), english) {
			t.Errorf("German landing page still says %q", english)
		}
	}

	run("open the claim form", chromedp.Click(`//a[contains(., "Geschenk auswählen")]`),
		chromedp.WaitVisible(`//label[contains(., "Straße und Hausnummer")]`))
	checkAccessible(bctx, t, axe, "German claim form")
	run("send it empty", chromedp.Click(`//button[contains(., "Adresse bestätigen")]`),
		chromedp.WaitVisible(`//p[@role="alert"]`), chromedp.Text("main", &body))
	checkAccessible(bctx, t, axe, "German claim form with errors")
	for _, want := range []string{"Bitte prüfen Sie die unten markierten Felder.", "Bitte wählen Sie ein Geschenk", "Pflichtfeld",
		"Postleitzahl", "Ländercode aus zwei Buchstaben"} {
		if !strings.Contains(body, want) {
			t.Errorf("German claim form with errors lacks %q:\n%s", want, body)
		}
	}
	for _, english := range []string{"is required", "Please check", "choose a gift"} {
		if strings.Contains(body, english) {
			t.Errorf("German claim form still says %q", english)
		}
	}
}
