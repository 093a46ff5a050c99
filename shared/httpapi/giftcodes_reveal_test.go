package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// The needles of TestDigitalCodeRevealedOnlyOnItsPage: a code, PIN and
// redemption host that no other text of the test can hold by chance.
const (
	leakCode = "LEAKTEST-9QX7-K2VD-W3RZ"
	leakPIN  = "PIN-Z8Y6W5Q"
	leakHost = "redeem.leaktest.example.com"
)

// TestDigitalCodeRevealedOnlyOnItsPage claims a digital gift on its claim
// page and follows the code everywhere it could go. The recipient's
// landing page shows it (code, PIN, redemption link); the API's answers
// (the recipient, the list, the CSV export, the gift, the summary), the
// webhook the real receiver gets, the change records and every log line of
// the API and the pages show at most its last four characters; the table
// holds it only sealed, and the sealer of webhook secrets (another KMS
// encryption context, the one the webhooks function and the worker use)
// cannot open it.
func TestDigitalCodeRevealedOnlyOnItsPage(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "codes-reveal", 100)
	logs := &logLines{}
	api := sealingAPI(t, s, key, logs)
	rc := newReceiver(t)
	createWebhook(t, api, rc.srv.URL, gifting.ChangeRecipientStatus)
	gift := createDigitalGift(t, api, "Coffee card")
	up := api.Do("POST", "/api/campaigns/gifts/"+gift+"/codes", map[string]any{"codes": []map[string]any{
		{"code": leakCode, "pin": leakPIN, "url": "https://" + leakHost + "/r"}}})
	if up.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", up.Status, up.Body)
	}
	res := api.Do("POST", "/api/campaigns", map[string]any{"name": "E-gifts", "campaignData": map[string]any{
		"giftIds": []string{gift}, "emailTemplateId": "tmpl-meeting-booker", "creditsPerRecipient": 30}})
	campaignID, _ := res.Map(t)["data"].(map[string]any)["campaignId"].(string)
	added := api.Do("POST", addPath(campaignID), recipientBody("ada@example.com", "Ada"))
	if added.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", added.Status, added.Body)
	}
	rid, _ := added.Map(t)["recipientId"].(string)
	r, err := s.Recipient(context.Background(), orgID, campaignID, rid)
	if err != nil {
		t.Fatal(err)
	}

	pages := httptest.NewServer(site.NewWithCodes(s, slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		testenv.CodeSecrets(t)))
	t.Cleanup(pages.Close)
	landing := claimOnPage(t, pages.URL, r.ClaimPageID, gift)
	for _, want := range []string{leakCode, leakPIN, "https://" + leakHost + "/r"} {
		if !strings.Contains(landing, want) {
			t.Errorf("the landing page does not show %q", want)
		}
	}
	// The same form posted again (its answer lost) leads to the same code.
	if again := claimOnPage(t, pages.URL, r.ClaimPageID, gift); !strings.Contains(again, leakCode) {
		t.Error("the claim posted again does not lead to the same code")
	}

	// The answers of the API about the recipient, its gift and its codes.
	var bodies []string
	for _, path := range []string{
		"/api/campaigns/campaigns/" + campaignID + "/recipients/" + rid,
		"/api/campaigns/campaigns/" + campaignID + "/recipients",
		"/api/campaigns/campaigns/" + campaignID + "/recipients/export",
		"/api/campaigns/gifts/" + gift, "/api/campaigns/gifts/" + gift + "/codes/summary",
	} {
		res := api.Do("GET", path, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
		}
		bodies = append(bodies, string(res.Body))
	}
	var one struct {
		Data struct {
			Status       string         `json:"status"`
			ShipmentInfo map[string]any `json:"shipmentInfo"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(bodies[0]), &one); err != nil {
		t.Fatal(err)
	}
	if one.Data.Status != "delivered" || one.Data.ShipmentInfo["maskedCode"] != "••••W3RZ" {
		t.Errorf("the recipient in the API: %s %v, want delivered with the code masked ••••W3RZ", one.Data.Status, one.Data.ShipmentInfo)
	}
	// The webhook of the claim (pending → delivered), as received.
	got := rc.wait(t, 1)
	if !strings.Contains(string(got[0].body), `"maskedCode":"••••W3RZ"`) || !strings.Contains(string(got[0].body), `"status":"delivered"`) {
		t.Errorf("webhook body %s: want the delivery with the code masked", got[0].body)
	}
	for _, g := range got {
		bodies = append(bodies, string(g.body))
	}
	bodies = append(bodies, logs.String(), string(up.Body))
	for _, needle := range []string{leakCode, "9QX7-K2VD", leakPIN, leakHost} {
		for i, b := range bodies {
			if strings.Contains(b, needle) {
				t.Errorf("%q is in %s", needle, where(i, len(bodies)))
			}
		}
	}
	// The table (the code's item, the recipient's, the change records).
	if found := scanFor(t, s.Table(), []string{leakCode, "9QX7-K2VD", leakPIN, leakHost}); len(found) > 0 {
		t.Errorf("the table holds the code, PIN or URL in clear at %v", found)
	}
	// Sealed under the codes' own encryption context: the webhook
	// secrets' sealer, with the same KMS key, cannot open it.
	id := giftcodes.Assigned(one.Data.ShipmentInfo)
	sealed, _, _, err := s.AssignedCode(context.Background(), orgID, gift, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.Secrets(t).Open(context.Background(), sealed, giftcodes.CodeOwner(orgID, gift, id)); err == nil {
		t.Error("the sealer of webhook secrets opened a gift code")
	}
}

// where names the i-th of n scanned texts of the test above.
func where(i, n int) string {
	switch {
	case i < 5:
		return "API answer " + []string{"recipient", "recipients", "export", "gift", "summary"}[i]
	case i < n-2:
		return "a webhook body"
	case i == n-2:
		return "the log lines"
	}
	return "the upload's answer"
}

// claimOnPage posts the claim form of page claimPageID with gift (no
// address: it is digital) and returns the landing page it leads to.
func claimOnPage(t *testing.T, base, claimPageID, gift string) string {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.PostForm(base+"/claim/"+claimPageID, url.Values{"giftId": {gift}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/gift/") {
		t.Fatalf("claim: %d to %q, want 303 to the landing page", res.StatusCode, loc)
	}
	page, err := http.Get(base + loc)
	if err != nil {
		t.Fatal(err)
	}
	defer page.Body.Close()
	b, _ := io.ReadAll(page.Body)
	if page.StatusCode != http.StatusOK {
		t.Fatalf("landing page: %d %s", page.StatusCode, b)
	}
	return string(b)
}

// TestDigitalDeliveredEmailSent: the scheduler sends the recipient of a
// digital gift its delivered email right after the claim. The campaign's
// template has a post-delivery email that does not link the landing page,
// so the service's own goes: it links the page, and neither it nor the
// invitation holds the code.
func TestDigitalDeliveredEmailSent(t *testing.T) {
	t.Parallel()
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	orgID, key := testenv.Org(t, s, "codes-mail", 100)
	api := testenv.NewAPI(t, s, key)
	gift := createDigitalGift(t, api, "Book voucher")
	if up := api.Do("POST", "/api/campaigns/gifts/"+gift+"/codes", map[string]any{"codes": []map[string]any{{"code": leakCode}}}); up.Status != http.StatusCreated {
		t.Fatalf("upload: %d %s", up.Status, up.Body)
	}
	res := api.Do("POST", "/api/campaigns", map[string]any{"name": "Event thanks", "campaignData": map[string]any{
		"giftIds": []string{gift}, "emailTemplateId": "tmpl-event-thank-you", "creditsPerRecipient": 25}})
	campaignID, _ := res.Map(t)["data"].(map[string]any)["campaignId"].(string)
	added := api.Do("POST", addPath(campaignID), recipientBody("lin@example.com", "Lin"))
	rid, _ := added.Map(t)["recipientId"].(string)
	testenv.SetCampaignStatus(t, s, orgID, campaignID, campaign.Live)
	tick := func() {
		t.Helper()
		clk.add(recipient.EmailHold + time.Second)
		if err := api.Scheduler.Tick(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	tick() // the invitation
	r, err := s.Recipient(t.Context(), orgID, campaignID, rid)
	if err != nil {
		t.Fatal(err)
	}
	pages := httptest.NewServer(site.NewWithCodes(s, testenv.Quiet, testenv.CodeSecrets(t)))
	t.Cleanup(pages.Close)
	claimOnPage(t, pages.URL, r.ClaimPageID, gift)
	tick()
	var delivered *mail.Message
	for _, m := range api.Mail.Sent() {
		if strings.Contains(m.Subject+m.HTML+m.Text, leakCode) || strings.Contains(m.Subject+m.HTML+m.Text, "9QX7-K2VD") {
			t.Errorf("the %s email holds the code", m.Kind)
		}
		if m.Kind == "postDelivery" {
			delivered = &m
		}
	}
	if delivered == nil {
		t.Fatalf("no delivered email after the claim; sent %d emails", len(api.Mail.Sent()))
	}
	if !strings.Contains(delivered.HTML, `href="`+r.URLs.LandingPage+`"`) || !strings.Contains(delivered.Subject, "ready") {
		t.Errorf("delivered email %q / %s: want it to say the gift is ready and link %s", delivered.Subject, delivered.HTML, r.URLs.LandingPage)
	}
}
