package pages_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// chromium returns the path of Debian's chromium. Without it the test
// skips, except under make test or in CI, where it fails
// (localstack.Missing).
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		localstack.Missing(t, "chromium is not installed (apt-get install -y chromium)")
	}
	return path
}

// TestBrowserJourney drives a real Chromium through a recipient's journey,
// from a real add-recipient response on a two-gift campaign. With
// SCREENSHOTS set to a directory it also saves the pages at phone and
// desktop widths there (`make screenshots`).
func TestBrowserJourney(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	f := demoFixture(t)

	// One server for the API and the pages, as `make run` serves them.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	baseURL := "http://" + ln.Addr().String()
	svc := service.New(f.s, service.Config{PublicBaseURL: baseURL, Logger: testenv.Quiet})
	srv := httpapi.NewServer(f.s, svc, httpapi.Config{Logger: testenv.Quiet})
	ts := httptest.NewUnstartedServer(site.With(srv.Handler(httpapi.Groups...), f.h))
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(ts.Close)
	api := testenv.HandlerAPI(t, ts.Config.Handler, f.apiKey)

	added := api.Do("POST", "/api/campaigns/campaigns/"+f.campaign+"/add-recipient",
		map[string]any{"contactDetails": map[string]any{"email": "maya@example.com", "firstName": "Maya", "lastName": "Lin"}})
	if added.Status != http.StatusOK {
		t.Fatalf("add-recipient: %d %s", added.Status, added.Body)
	}
	var addedBody wire.AddedRecipient
	added.JSON(t, &addedBody)
	balance, _ := f.wallet(t)

	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(360, 800)) // chromedp makes a fresh profile directory and removes it once Chromium has exited
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	shoot := screenshots // SCREENSHOTS names the directory (timeline_browser_test.go)
	var text string
	run := func(step string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	run("open the landing page", chromedp.Navigate(addedBody.LandingPageURL), chromedp.Text("h1", &text), shoot("1-landing"))
	if !strings.Contains(text, "Hi Maya") {
		t.Errorf("landing heading %q", text)
	}
	run("follow the button", chromedp.Click("a.button"), chromedp.WaitVisible(`input[name="line1"]`))
	fill := func(street string) []chromedp.Action {
		actions := []chromedp.Action{
			chromedp.Click(`input[value="` + f.cheap.GiftID + `"]`),
			chromedp.SetValue("#city", "Portland"), chromedp.SetValue("#state", "OR"),
			chromedp.SetValue("#zip", "97201"), chromedp.SetValue("#country", "US"), chromedp.SetValue("#phoneNumber", "+1 503 555 0100"),
		}
		if street != "" { // the field starts empty (and SetValue refuses "")
			actions = append(actions, chromedp.SetValue("#line1", street))
		}
		return actions
	}
	run("submit without a street", append(fill(""), chromedp.Submit("#line1"), chromedp.WaitVisible("#line1-error"),
		chromedp.Text("#line1-error", &text), shoot("2-claim-error"))...)
	if !strings.Contains(text, "required") {
		t.Errorf("error beside the street: %q", text)
	}
	if r := f.recipient(t, addedBody.RecipientID); r.Claimed() {
		t.Fatal("the invalid form wrote the claim")
	}
	run("submit complete", append(fill("12 Rose Lane"), chromedp.Submit("#line1"), chromedp.WaitVisible("ol.steps"), shoot("3-confirmed"))...)

	// The API shows the claim.
	res := api.Do("GET", "/api/campaigns/campaigns/"+f.campaign+"/recipients/"+addedBody.RecipientID, nil)
	var env struct {
		Data wire.Recipient `json:"data"`
	}
	res.JSON(t, &env)
	if got := env.Data; got.Status != gifting.RecipientProcessing || got.SelectedGift.GiftID != f.cheap.GiftID || got.Address == nil {
		t.Errorf("recipient through the API: %s", res.Body)
	}
	var wallet struct {
		Data struct {
			Balance int64 `json:"balance"`
			Ledger  struct {
				Items []wire.LedgerEntry `json:"items"`
			} `json:"ledger"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/wallet", nil).JSON(t, &wallet)
	if after, entries := f.wallet(t); after != balance+30 || entries[0].Type != "refund" || wallet.Data.Balance != after ||
		len(wallet.Data.Ledger.Items) == 0 || wallet.Data.Ledger.Items[0].Type != "refund" || wallet.Data.Ledger.Items[0].Amount != 30 {
		t.Errorf("wallet %d (API %d), was %d; newest entry %+v", after, wallet.Data.Balance, balance, entries[0])
	}
	var gift gifting.Gift
	api.Do("GET", "/api/campaigns/gifts/"+f.cheap.GiftID, nil).JSON(t, &gift)
	if gift.Inventory.Available != 4 || gift.Inventory.Reserved != 3 {
		t.Errorf("inventory through the API: %+v, want one unit reserved", gift.Inventory)
	}

	// The organization ships the order (issue 31), then delivers it; the
	// recipient says it arrived and leaves feedback.
	orderID, _ := env.Data.ShipmentInfo["orderId"].(string)
	ship := map[string]any{"carrier": "UPS", "trackingNumber": "1Z999AA10123456784", "trackingUrl": "https://ups.test/1Z999AA10123456784"}
	if res := api.Do("POST", "/api/campaigns/orders/"+orderID+"/shipments", ship); res.Status != http.StatusOK {
		t.Fatalf("ship: %d %s", res.Status, res.Body)
	}
	if res := api.Do("POST", "/api/campaigns/campaigns/"+f.campaign+"/recipients/"+addedBody.RecipientID+"/status", map[string]any{"status": "delivered"}); res.Status != http.StatusOK {
		t.Fatalf("deliver: %d %s", res.Status, res.Body)
	}
	run("say it arrived", chromedp.Navigate(addedBody.LandingPageURL), chromedp.Click(`//button[contains(., "It arrived")]`),
		chromedp.WaitVisible(`//p[contains(., "it arrived")]`))
	run("leave feedback", chromedp.Click(`input[value="like"]`), chromedp.SetValue("#message", "Perfect coffee, thank you!"),
		chromedp.Submit("#message"), chromedp.WaitVisible(`//p[contains(., "Thank you for your feedback")]`), shoot("4-acknowledged"))
	got := f.recipient(t, addedBody.RecipientID)
	if got.Status != gifting.RecipientAcknowledged || got.Feedback.Rating == nil || got.Feedback.Rating.Value != "like" ||
		len(got.Feedback.Message) != 1 || got.Feedback.Message[0].Text != "Perfect coffee, thank you!" {
		t.Errorf("after the journey: %s, feedback %+v", got.Status, got.Feedback)
	}
}

// giftBlurbs are the short descriptions of the browser test's gifts.
var giftBlurbs = map[string]string{
	"Coffee":     "Single-origin beans from a roaster near you, 340 g, ground or whole.",
	"Headphones": "Wireless noise-cancelling headphones with a 30-hour battery.",
}

// demoFixture is a fixture whose gifts carry the demo catalog's blurbs
// and images, as the browser tests picture them.
func demoFixture(t *testing.T) *fixture {
	return newFixtureWith(t, nil, func(name string) (string, string) { return giftBlurbs[name], demoImage(name) })
}

// demoServer is demoFixture served over HTTP until the test ends.
func demoServer(t *testing.T) (*fixture, *httptest.Server) {
	f := demoFixture(t)
	ts := httptest.NewServer(f.h)
	t.Cleanup(ts.Close)
	return f, ts
}

// demoImage is the demo catalog's picture of a gift named name, as the
// pages function serves it (/assets/gifts/, shipped in the repository):
// its own when there is one, else the gift box.
func demoImage(name string) string {
	file := strings.ToLower(name) + ".png"
	if _, err := os.Stat(filepath.Join("assets", "gifts", file)); err != nil {
		file = "gift-box.png"
	}
	return "/assets/gifts/" + file
}
