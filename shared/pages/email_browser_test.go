package pages_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/pages"
	"github.com/giftcampaign/service/shared/recipient"
)

// TestBrowserInvitationEmail opens the invitation email, as the service
// composes it from the demo catalog's meeting-booker template, a branded
// organization and the campaign's note, in a real Chromium at a mail
// client's 600 px and a phone's 360 px: the gift images load (served by
// the pages, as in `make run`), nothing is wider than the window, and the
// one button is on screen without scrolling sideways. With SCREENSHOTS set
// it saves both (docs/screenshots/invitation-email-*.png).
func TestBrowserInvitationEmail(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	assets := pages.New(nil, nil)
	var html string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/email" {
			assets.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(html))
	}))
	t.Cleanup(ts.Close)

	cat, err := seed.LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	var emails map[string]gifting.EmailTemplate
	for _, tm := range cat.Templates {
		if tm.TemplateID == "tmpl-meeting-booker" {
			emails = tm.TemplateData.Emails
		}
	}
	r := recipient.SampleRecipient(ts.URL, "Q4 thanks", emails)
	r.SelectedGift = recipient.SelectedGift{}
	m, err := recipient.ComposeEmail(r, "addressConfirmation", recipient.MailContext{
		Org: gifting.Organization{OrgID: "acme", OrgName: "Acme", Branding: &gifting.Branding{DisplayName: "Acme Robotics",
			BrandColor: "#0b5394", SenderName: "Ada Lovelace", FooterText: "Acme Robotics · 1 Main Street, Springfield"}},
		Message: "{{firstName}}, thank you for a wonderful year working with us at {{companyName}}. Pick whichever you like best!",
		Gifts:   cat.Gifts[:2], PublicBaseURL: ts.URL,
	})
	if err != nil {
		t.Fatal(err)
	}
	html = m.HTML

	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.WindowSize(600, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for _, width := range []int64{600, 360} {
		var scrollWidth, loaded int
		var buttonRight float64
		if err := chromedp.Run(ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(ts.URL+"/email"),
			chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollWidth),
			chromedp.Evaluate(`[...document.images].filter(i => i.complete && i.naturalWidth > 0).length`, &loaded),
			chromedp.Evaluate(`[...document.links].pop().getBoundingClientRect().right`, &buttonRight)); err != nil {
			t.Fatal(err)
		}
		if scrollWidth > int(width) || buttonRight > float64(width) || loaded != 2 {
			t.Errorf("at %d px: page %d px wide, button's right edge at %.0f, %d of 2 gift images loaded", width, scrollWidth, buttonRight, loaded)
		}
		if dir := os.Getenv("SCREENSHOTS"); dir != "" {
			var png []byte
			if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "invitation-email-"+map[int64]string{600: "600", 360: "360"}[width]+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
