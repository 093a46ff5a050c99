package pages_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// screenshots saves the page Chromium shows as name at phone and desktop
// widths in the directory SCREENSHOTS names (`make screenshots`), and does
// nothing without it.
func screenshots(name string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		dir := os.Getenv("SCREENSHOTS")
		if dir == "" {
			return nil
		}
		for _, w := range []struct {
			label string
			width int64
		}{{"phone", 360}, {"desktop", 1280}} {
			var png []byte
			if err := chromedp.Run(ctx, chromedp.EmulateViewport(w.width, 800), chromedp.FullScreenshot(&png, 100)); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, name+"-"+w.label+".png"), png, 0o644); err != nil {
				return err
			}
		}
		return chromedp.EmulateViewport(360, 800).Do(ctx)
	})
}

// TestBrowserTimeline opens a recipient's landing page in a real Chromium
// as its gift ships, travels and arrives: the timeline's current stage is
// the one the browser exposes as aria-current="step", the tracking link
// is there once shipped, the estimated delivery while in transit, the "It
// arrived" button once delivered; and axe-core finds no WCAG 2.1 AA
// violation at any stage.
func TestBrowserTimeline(t *testing.T) {
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
	id := added.Recipient.RecipientID
	landing := ts.URL + "/gift/" + added.Recipient.LandingPageID
	testenv.Claim(t, f.s, f.orgID, f.campaign, id)
	orderID, _ := f.recipient(t, id).ShipmentInfo["orderId"].(string)
	link := "https://www.ups.com/track?tracknum=1Z999AA10123456784&loc=en_US"
	if _, _, err := testenv.Recipients(f.s).Ship(ctx, f.orgID, orderID, fulfilment.ShipmentInput{Carrier: "UPS",
		TrackingNumber: "1Z999AA10123456784", TrackingURL: link}); err != nil {
		t.Fatal(err)
	}

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
	run := func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(bctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	// stage opens the landing page and checks the stage the browser
	// marks current: its text, and that it is the only one so marked.
	stage := func(name, want string) {
		t.Helper()
		var current string
		var marked []string
		run("open the "+name+" page", chromedp.Navigate(landing), chromedp.WaitVisible(`ol.steps`),
			chromedp.Text(`ol.steps > li[aria-current="step"]`, &current),
			chromedp.Evaluate(`[...document.querySelectorAll('[aria-current]')].map(e => e.getAttribute('aria-current'))`, &marked))
		if !strings.Contains(current, want) || !strings.Contains(strings.ToLower(current), "now") || len(marked) != 1 || marked[0] != "step" {
			t.Errorf("%s page: current stage %q (aria-current on %q), want %q, now", name, current, marked, want)
		}
		checkAccessible(bctx, t, axe, name)
		run("screenshot", screenshots("5-timeline-"+name))
	}

	stage("shipped", "Shipped")
	var href string
	var ok bool
	run("the tracking link", chromedp.AttributeValue(`ol.steps a.step-link`, "href", &href, &ok))
	if href != link {
		t.Errorf("tracking link %q, want %q", href, link)
	}

	now := time.Now().UTC()
	eta := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 2)
	f.track(t, orderID, "in_transit", now, &eta)
	stage("in-transit", "In transit")
	var text string
	run("the estimated delivery", chromedp.Text(`ol.steps > li[aria-current="step"]`, &text))
	if !strings.Contains(text, "Estimated delivery: "+day(eta)) {
		t.Errorf("in transit stage %q lacks the estimated delivery %s", text, day(eta))
	}

	f.track(t, orderID, "delivered", now.Add(time.Second), &eta)
	stage("delivered", "Delivered")
	run("say it arrived", chromedp.Click(`//button[contains(., "It arrived")]`), chromedp.WaitVisible(`//p[contains(., "it arrived")]`))
	checkAccessible(bctx, t, axe, "acknowledged")
	if got := f.recipient(t, id); got.Status != gifting.RecipientAcknowledged {
		t.Errorf("recipient %s after It arrived", got.Status)
	}
}
