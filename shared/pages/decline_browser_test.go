package pages_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestBrowserDecline says "No thanks" in a real Chromium: the landing page
// offers the button beside the claim, the click ends on the polite end
// state with the credits back in the wallet, and axe-core finds no WCAG
// 2.1 AA violation before or after. With SCREENSHOTS set it saves the end
// state (`make screenshots`).
func TestBrowserDecline(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	axe := axeSource(t)
	ctx := context.Background()
	f, ts := demoServer(t)
	added, err := testenv.Recipients(f.s).Write(ctx, recipient.AddInput{OrgID: f.orgID, CampaignID: f.campaign, SourceType: "api",
		PublicBaseURL: ts.URL, Contact: gifting.ContactInput{MailID: "maya@example.com", FirstName: "Maya", LastName: "Lin"}})
	if err != nil {
		t.Fatal(err)
	}
	balance, _ := f.wallet(t)

	bctx, run := browse(t, bin)
	run("open the landing page", chromedp.Navigate(ts.URL+"/gift/"+added.Recipient.LandingPageID),
		chromedp.WaitVisible(`//button[contains(., "No thanks")]`))
	checkAccessible(bctx, t, axe, "landing with No thanks")
	var heading string
	run("say no thanks", chromedp.Click(`//button[contains(., "No thanks")]`),
		chromedp.WaitVisible(`//h1[contains(., "thank you for letting us know")]`), chromedp.Text("h1", &heading),
		screenshots("6-declined"))
	checkAccessible(bctx, t, axe, "declined")
	if got := f.recipient(t, added.Recipient.RecipientID); got.Status != gifting.RecipientDeclined {
		t.Errorf("recipient %s after No thanks (heading %q)", got.Status, heading)
	}
	if after, _ := f.wallet(t); after != balance+f.creditsPerPerson {
		t.Errorf("balance %d after No thanks, want %d back on %d", after, f.creditsPerPerson, balance)
	}
}

// browse starts a headless Chromium at phone width for the test, with the
// extra options given, and returns its context and a runner that fails
// the test on a step's error.
func browse(t *testing.T, bin string, extra ...chromedp.ExecAllocatorOption) (context.Context, func(step string, actions ...chromedp.Action)) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(360, 800))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts, extra...)...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	bctx, cancelTimeout := context.WithTimeout(bctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelBrowser(); cancelAlloc() })
	return bctx, func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
}
