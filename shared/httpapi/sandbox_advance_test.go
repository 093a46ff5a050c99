package httpapi_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/pages"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// sandboxCampaign creates a campaign of api's holding credits for each
// recipient and offering a gift of gift credits, live in the table.
func sandboxCampaign(t *testing.T, s *dynamo.Store, api *testenv.API, orgID string, credits, gift int64) string {
	t.Helper()
	g := createOwnGift(t, api, "Sandbox hamper", float64(gift))
	c := postCampaign(t, api, map[string]any{"name": "Sandbox thanks", "campaignData": map[string]any{
		"giftIds": []string{g.GiftID}, "emailTemplateId": "tmpl-meeting-booker", "creditsPerRecipient": credits}})
	testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
	return c.CampaignID
}

// sandboxMoves waits for n recipient.status_changed messages at rc and
// returns them as "previous>status".
func sandboxMoves(t *testing.T, rc *receiver, n int) []string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var moves []string
		rc.mu.Lock()
		got := slices.Clone(rc.got)
		rc.mu.Unlock()
		for _, r := range got {
			var m struct {
				Type string `json:"type"`
				Data struct {
					Status         string `json:"status"`
					PreviousStatus string `json:"previousStatus"`
				} `json:"data"`
			}
			if json.Unmarshal(r.body, &m) == nil && m.Type == "recipient.status_changed" {
				moves = append(moves, m.Data.PreviousStatus)
			}
		}
		if len(moves) >= n || time.Now().After(deadline) {
			return moves
		}
	}
}

// TestSandboxAdvanceWalksTheLivePath: a test key's recipient is advanced
// to address_confirmed (the claim: the gift's 15 credits less than the 40
// held come back to the sandbox wallet), then to delivered (shipped,
// in_transit and delivered, each step its own move); the webhook endpoint
// the test key registered receives every move; an impossible step is a
// 409; no email of the sandbox reaches the mailer; the reset brings the
// wallet back to its free credits through its ledger.
func TestSandboxAdvanceWalksTheLivePath(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "sbx-walk", 0)
	twin := gifting.SandboxOrgID(orgID)
	live := testenv.NewAPI(t, s, key)
	test := live.WithKey(testKey(t, live))
	t.Cleanup(func() { testenv.AssertLedgerBalanced(t, dynamo.New(testenv.Client(t), s.Table()), twin) })
	testenv.StreamChanges(t, s, test.Service)
	rc := newReceiver(t)
	createWebhook(t, test, rc.srv.URL+"/sandbox", "recipient.status_changed")
	campaignID := sandboxCampaign(t, s, test, twin, 40, 25)
	res := test.Do("POST", addPath(campaignID), recipientBody("walker@example.com", "Walt"))
	if res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	recipientID := res.Map(t)["recipientId"].(string)
	// The recipient's pages serve a sandbox's recipient as any other
	// (its page id names the sandbox: acme~test.<campaign>.<recipient>.<secret>).
	landing, err := url.Parse(res.Map(t)["landingPageUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	page := httptest.NewRecorder()
	pages.New(recipient.NewPages(recipient.NewApp(s, recipient.Config{})), testenv.Quiet).
		ServeHTTP(page, httptest.NewRequest("GET", landing.Path, nil))
	if page.Code != http.StatusOK || !strings.Contains(page.Body.String(), "Walt") {
		t.Fatalf("the sandbox recipient's landing page %s: %d", landing.Path, page.Code)
	}
	advance := func(status string) testenv.Response {
		return test.Do("POST", "/api/campaigns/sandbox/recipients/"+recipientID+"/advance",
			map[string]any{"status": status, "campaignId": campaignID})
	}
	status := func(res testenv.Response) string {
		var env struct {
			Data struct {
				Status string `json:"status"`
			} `json:"data"`
		}
		res.JSON(t, &env)
		return env.Data.Status
	}

	// The claim opens the gift's order at once: the recipient is processing.
	if res := advance("address_confirmed"); res.Status != http.StatusOK || status(res) != "processing" {
		t.Fatalf("advance to address_confirmed: %d %s", res.Status, res.Body)
	}
	if w := walletOf(t, test, ""); w.Balance != access.SandboxCredits-40+15 {
		t.Errorf("sandbox wallet after the claim %d, want %d (the claim's refund of 15)", w.Balance, access.SandboxCredits-40+15)
	}
	if res := advance("delivered"); res.Status != http.StatusOK || status(res) != "delivered" {
		t.Fatalf("advance to delivered: %d %s", res.Status, res.Body)
	}
	want := []string{"pending", "invite_sent", "processing", "shipped", "in_transit"}
	if got := sandboxMoves(t, rc, len(want)); !slices.Equal(got, want) {
		t.Errorf("webhook moves %v, want %v", got, want)
	}
	assertError(t, advance("shipped"), http.StatusConflict, "CONFLICT")
	assertError(t, advance("expired"), http.StatusBadRequest, "VALIDATION_FAILED")
	assertError(t, test.Do("POST", "/api/campaigns/sandbox/recipients/"+recipientID+"/advance", map[string]any{"status": "shipped"}),
		http.StatusBadRequest, "VALIDATION_FAILED")

	// Due emails go out (are captured): none reaches the mailer.
	if err := test.Scheduler.Tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	test.Jobs.Wait()
	if sent := test.Mail.Sent(); len(sent) != 0 {
		t.Errorf("the sandbox sent %d emails through the mailer, want none: first to %s", len(sent), sent[0].To)
	}
	if len(capturedEmails(t, test, 100)) == 0 {
		t.Error("no email of the sandbox was captured")
	}

	// The reset tops up what the wallet lacks, and debits what it holds
	// over, each with its ledger entry.
	var reset struct {
		Data struct {
			Balance int64 `json:"balance"`
		} `json:"data"`
	}
	for _, over := range []int64{0, 5000} {
		if over > 0 {
			if _, _, err := wallet.NewApp(s).TopUp(context.Background(), twin, over, "test"); err != nil {
				t.Fatal(err)
			}
		}
		res := test.Do("POST", "/api/campaigns/sandbox/reset", nil)
		res.JSON(t, &reset)
		if res.Status != http.StatusOK || reset.Data.Balance != access.SandboxCredits || walletOf(t, test, "").Balance != access.SandboxCredits {
			t.Errorf("reset (%d over): %d %s", over, res.Status, res.Body)
		}
		testenv.AssertLedgerBalanced(t, s, twin)
	}
	if w := walletOf(t, test, "?limit=1"); len(w.Ledger.Items) != 1 || w.Ledger.Items[0].Type != "debit" || w.Ledger.Items[0].Amount != 5000 {
		t.Errorf("the last reset's ledger entry %+v, want a debit of 5000", w.Ledger.Items)
	}
}

// TestSandboxAdvanceChoosesAnOptionInStock: a gift with options is claimed
// in its first option in stock (S is sold out, so M), as a person would
// choose on the claim page.
func TestSandboxAdvanceChoosesAnOptionInStock(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "sbx-options", 0)
	twin := gifting.SandboxOrgID(orgID)
	test := testenv.NewAPI(t, s, key)
	test = test.WithKey(testKey(t, test))
	t.Cleanup(func() { testenv.AssertLedgerBalanced(t, dynamo.New(testenv.Client(t), s.Table()), twin) })
	res := test.Do("POST", "/api/campaigns/gifts", map[string]any{"name": "Hoodie", "price": 30, "currency": "USD", "variants": []map[string]any{
		{"name": "S", "inventory": map[string]any{"total": 1, "available": 0, "reserved": 1}},
		{"name": "M", "inventory": map[string]any{"total": 4, "available": 4, "reserved": 0}},
	}})
	var gift struct {
		Data struct {
			GiftID   string `json:"giftId"`
			Variants []struct {
				VariantID string `json:"variantId"`
				Name      string `json:"name"`
			} `json:"variants"`
		} `json:"data"`
	}
	res.JSON(t, &gift)
	if res.Status != http.StatusCreated || len(gift.Data.Variants) != 2 {
		t.Fatalf("create gift: %d %s", res.Status, res.Body)
	}
	c := postCampaign(t, test, map[string]any{"name": "Hoodies", "campaignData": map[string]any{
		"giftIds": []string{gift.Data.GiftID}, "emailTemplateId": "tmpl-meeting-booker", "creditsPerRecipient": 30}})
	testenv.SetCampaignStatus(t, s, twin, c.CampaignID, campaign.Live)
	res = test.Do("POST", addPath(c.CampaignID), recipientBody("hoodie@example.com", "Hal"))
	if res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	recipientID := res.Map(t)["recipientId"].(string)
	res = test.Do("POST", "/api/campaigns/sandbox/recipients/"+recipientID+"/advance", map[string]any{"status": "address_confirmed", "campaignId": c.CampaignID})
	if res.Status != http.StatusOK {
		t.Fatalf("advance: %d %s", res.Status, res.Body)
	}
	rs := recipient.NewApp(s, recipient.Config{})
	r, err := rs.Get(t.Context(), twin, c.CampaignID, recipientID)
	if err != nil {
		t.Fatal(err)
	}
	orderID, _ := r.ShipmentInfo["orderId"].(string)
	o, err := rs.Order(t.Context(), twin, orderID)
	if err != nil {
		t.Fatal(err)
	}
	if o.VariantID != gift.Data.Variants[1].VariantID {
		t.Errorf("claimed option %q, want M (%s)", o.VariantID, gift.Data.Variants[1].VariantID)
	}
}

// TestSandboxCatalogGiftTouchesNothingLive: a sandbox recipient of a
// service-catalog gift is claimed, shipped and delivered through advance,
// and the live side never sees it: the catalog's stock (the operator's,
// shared by every organization) is what it was, and the operator's queue
// of orders to ship holds no order of the sandbox, so no real gift goes out
// for free credits.
func TestSandboxCatalogGiftTouchesNothingLive(t *testing.T) {
	t.Parallel()
	const giftID = "gift-artisan-coffee" // the seeded service catalog's
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "sbx-catalog", 0)
	twin := gifting.SandboxOrgID(orgID)
	live := testenv.NewAPI(t, s, key)
	test := live.WithKey(testKey(t, live))
	t.Cleanup(func() { testenv.AssertLedgerBalanced(t, dynamo.New(testenv.Client(t), s.Table()), twin) })
	stock := func() map[string]any {
		res := live.Do("GET", "/api/campaigns/gifts/"+giftID, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("catalog gift: %d %s", res.Status, res.Body)
		}
		inv, _ := res.Map(t)["inventory"].(map[string]any)
		return inv
	}
	before := stock()
	c := postCampaign(t, test, map[string]any{"name": "Sandbox coffee", "campaignData": map[string]any{
		"giftIds": []string{giftID}, "emailTemplateId": "tmpl-meeting-booker", "creditsPerRecipient": 50}})
	testenv.SetCampaignStatus(t, s, twin, c.CampaignID, campaign.Live)
	res := test.Do("POST", addPath(c.CampaignID), recipientBody("coffee@example.com", "Cora"))
	if res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	recipientID := res.Map(t)["recipientId"].(string)
	for _, step := range []string{"address_confirmed", "shipped", "delivered"} {
		res := test.Do("POST", "/api/campaigns/sandbox/recipients/"+recipientID+"/advance",
			map[string]any{"status": step, "campaignId": c.CampaignID})
		if res.Status != http.StatusOK {
			t.Fatalf("advance to %s: %d %s", step, res.Status, res.Body)
		}
		if step == "address_confirmed" { // the order is open: would the operator see it?
			orders, _, err := s.OpenServiceOrders(t.Context(), "", 100)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range orders {
				if o.OrganizationID == twin {
					t.Errorf("the operator's queue holds the sandbox's open order %s", o.OrderID)
				}
			}
		}
	}
	if after := stock(); !maps.Equal(after, before) {
		t.Errorf("the live catalog's stock of %s moved with a sandbox's order: %v, was %v", giftID, after, before)
	}
}
