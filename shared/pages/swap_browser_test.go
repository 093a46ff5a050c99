package pages_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestBrowserSwap chooses a gift of the campaign's swap collection in a
// real Chromium: the claim form shows it beside the campaign's own gift,
// the claim goes through to the landing page with the swapped gift, and
// axe-core finds no WCAG 2.1 AA violation on the form. With SCREENSHOTS
// set it saves the form (`make screenshots`).
func TestBrowserSwap(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	axe := axeSource(t)
	f, campaignID, tea := swapFixture(t, func(name string) (string, string) {
		blurb := giftBlurbs[name]
		if blurb == "" {
			blurb = name + ", picked for you."
		}
		return blurb, demoImage(name)
	})
	ts := httptest.NewServer(f.h)
	t.Cleanup(ts.Close)
	r := f.addTo(t, campaignID, "maya@example.com")

	bctx, run := browse(t, bin)
	run("open the claim page", chromedp.Navigate(ts.URL+"/claim/"+r.ClaimPageID),
		chromedp.WaitVisible(`input[value="`+tea.GiftID+`"]`), screenshots("7-swap"))
	checkAccessible(bctx, t, axe, "claim with a swap")
	var heading string
	run("choose the swap and confirm", chromedp.Click(`input[value="`+tea.GiftID+`"]`),
		chromedp.SetValue("#line1", "12 Rose Lane"), chromedp.SetValue("#city", "Portland"),
		chromedp.SetValue("#zip", "97201"), chromedp.SetValue("#country", "US"),
		chromedp.Submit("#line1"), chromedp.WaitVisible("ol.steps"), chromedp.Text("ul.gifts", &heading))
	if !strings.Contains(heading, "Tea") {
		t.Errorf("the landing page after the swap shows %q, want Tea", heading)
	}
	got, err := f.s.Recipient(context.Background(), f.orgID, campaignID, r.RecipientID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SelectedGift.GiftID != tea.GiftID || got.Status != gifting.RecipientProcessing {
		t.Errorf("recipient after the swap: %s, %s", got.SelectedGift.GiftID, got.Status)
	}
}
