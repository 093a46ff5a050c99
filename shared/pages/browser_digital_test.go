package pages_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestBrowserDigitalClaim drives Chromium through the claim of a digital
// gift: the claim page asks for no address, one button claims it, and the
// landing page it leads to shows the code, its PIN and the redemption
// link; the claim page visited again leads back to the same code. axe-core
// finds no WCAG 2.1 AA violation on either page. With SCREENSHOTS set it
// saves both (`make screenshots`).
func TestBrowserDigitalClaim(t *testing.T) {
	t.Parallel()
	bin, axe := chromium(t), axeSource(t)
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme-digital", 100)
	g, err := catalog.NewApp(s).CreateGift(ctx, orgID, catalog.Gift{Name: "Coffee card $25", Type: catalog.GiftDigital, Price: 25,
		Currency: "USD", Status: catalog.GiftAvailable, ShortDescription: "A $25 card for any of our partner cafés"})
	if err != nil {
		t.Fatal(err)
	}
	codes := []giftcodes.Code{{Code: "CAFE-7Q2X-91KD-0001", PIN: "4821", URL: "https://redeem.example.com/cafe"}}
	if _, err := giftcodes.NewApp(s, testenv.CodeSecrets(t)).Upload(ctx, orgID, g.GiftID, codes); err != nil {
		t.Fatal(err)
	}
	c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "Winter thanks", Description: "Thank you for a great year!",
		CreatedBy: "user-1", CampaignData: campaign.Data{GiftIDs: []string{g.GiftID}, CreditsPerRecipient: 25, PriceSet: true}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := testenv.Recipients(s).Write(ctx, recipient.AddInput{OrgID: orgID, CampaignID: c.CampaignID, SourceType: "api",
		PublicBaseURL: "https://gifts.test", Contact: gifting.ContactInput{MailID: "maya@example.com", FirstName: "Maya", LastName: "Lin"}})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Recipient
	ts := httptest.NewServer(site.NewWithCodes(s, testenv.Quiet, testenv.CodeSecrets(t)))
	t.Cleanup(ts.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(360, 800))
	actx, cancel := chromedp.NewExecAllocator(ctx, opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	bctx, cancel = context.WithTimeout(bctx, 90*time.Second)
	defer cancel()
	step := func(name string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	var heading string
	var fields int
	step("open the claim page", page.SetBypassCSP(true), chromedp.Navigate(ts.URL+"/claim/"+r.ClaimPageID),
		chromedp.WaitVisible(`button[type="submit"]`), chromedp.Text("h1", &heading),
		chromedp.Evaluate(`document.querySelectorAll("input:not([type=hidden])").length`, &fields))
	if fields != 0 || !strings.Contains(heading, "claim your gift") {
		t.Errorf("claim page: heading %q with %d visible inputs; want no address asked", heading, fields)
	}
	checkAccessible(bctx, t, axe, "the digital claim")
	step("screenshot the claim page", screenshots("digital-1-claim"))

	var code, pin, link, notice string
	step("claim", chromedp.Click(`button[type="submit"]`), chromedp.WaitVisible(`#code-heading`),
		chromedp.Text(`p.code`, &code), chromedp.Text(`span.code`, &pin), chromedp.Text(`.notice`, &notice),
		chromedp.AttributeValue(`a.button[rel~="noreferrer"]`, "href", &link, nil))
	if code != codes[0].Code || pin != codes[0].PIN || link != codes[0].URL {
		t.Errorf("landing page shows code %q, PIN %q, link %q; want %+v", code, pin, link, codes[0])
	}
	if !strings.Contains(notice, "ready") {
		t.Errorf("notice after the claim %q: want the gift said to be ready (nothing ships)", notice)
	}
	checkAccessible(bctx, t, axe, "the revealed code")
	step("screenshot the code", screenshots("digital-2-code"))

	// The claim page again (the invitation's link, a reload) leads back to
	// the same code.
	var again string
	step("open the claim page again", chromedp.Navigate(ts.URL+"/claim/"+r.ClaimPageID), chromedp.WaitVisible(`#code-heading`),
		chromedp.Text(`p.code`, &again))
	if again != codes[0].Code {
		t.Errorf("the claim page visited again shows %q, want the same code", again)
	}
	got, err := s.Recipient(ctx, orgID, c.CampaignID, r.RecipientID)
	if err != nil || got.Status != gifting.RecipientDelivered {
		t.Errorf("recipient after the claim: %v, %v; want delivered", got.Status, err)
	}
}
