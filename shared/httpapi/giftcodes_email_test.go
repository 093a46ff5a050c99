package httpapi_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestDigitalCodeInDeliveredEmailOnlyWhenOptedIn: two organizations give
// a digital gift the same way, one with digitalCodesInEmail set in its
// branding. The delivered email each recipient gets through the SES
// emulator links the landing page; only the opted-in organization's also
// carries the code, PIN and redemption link (HTML and text parts). Even
// then the code is in no invitation, no API answer about the recipient,
// no log line of the worker and no item of the table in clear.
func TestDigitalCodeInDeliveredEmailOnlyWhenOptedIn(t *testing.T) {
	t.Parallel()
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	endpoint := localstack.SESEndpoint(t)
	mailer, err := sesmail.New(app.Config{SenderAddress: "gifts@example.com", SESConfigurationSet: "gift-campaigns-test",
		SESEndpoint: endpoint, PublicBaseURL: "https://gifts.test"})
	if err != nil {
		t.Fatal(err)
	}
	logs := &logLines{}
	worker := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Mailer: mailer, Codes: testenv.CodeSecrets(t),
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	sched := scheduler.New(s, worker.RunJob, testenv.Quiet)
	pages := httptest.NewServer(site.NewWithCodes(s, testenv.Quiet, testenv.CodeSecrets(t)))
	t.Cleanup(pages.Close)
	tag := strings.ToLower(gifting.NewID())

	type given struct {
		api                     *testenv.API
		orgID, campaignID, rid  string
		gift                    string
		address, code, pin, url string
	}
	give := func(name string, optIn bool) given {
		g := given{code: strings.ToUpper(name) + "-7Q2W-X9K3", pin: "PIN-" + strings.ToUpper(name) + "-55",
			url: "https://redeem-" + name + ".example.com/r", address: name + "-" + tag + "@example.com"}
		var key string
		g.orgID, key = testenv.Org(t, s, "codes-"+name, 100)
		g.api = testenv.NewAPI(t, s, key)
		if res := g.api.Do("PUT", "/api/campaigns/organization/branding", map[string]any{"displayName": "Org " + name,
			"digitalCodesInEmail": optIn}); res.Status != http.StatusOK || res.Map(t)["data"].(map[string]any)["digitalCodesInEmail"] != optIn {
			t.Fatalf("branding: %d %s", res.Status, res.Body)
		}
		g.gift = createDigitalGift(t, g.api, "Coffee card")
		if up := g.api.Do("POST", "/api/campaigns/gifts/"+g.gift+"/codes", map[string]any{"codes": []map[string]any{
			{"code": g.code, "pin": g.pin, "url": g.url}}}); up.Status != http.StatusCreated {
			t.Fatalf("upload: %d %s", up.Status, up.Body)
		}
		res := g.api.Do("POST", "/api/campaigns", map[string]any{"name": "Thanks", "campaignData": map[string]any{
			"giftIds": []string{g.gift}, "emailTemplateId": "tmpl-event-thank-you", "creditsPerRecipient": 25}})
		g.campaignID, _ = res.Map(t)["data"].(map[string]any)["campaignId"].(string)
		added := g.api.Do("POST", addPath(g.campaignID), recipientBody(g.address, "Lin"))
		g.rid, _ = added.Map(t)["recipientId"].(string)
		testenv.SetCampaignStatus(t, s, g.orgID, g.campaignID, campaign.Live)
		return g
	}
	tick := func() {
		t.Helper()
		clk.add(recipient.EmailHold + time.Second)
		if err := sched.Tick(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	optIn, plain := give("optin", true), give("plain", false)
	tick() // the invitations
	for _, g := range []given{optIn, plain} {
		r, err := s.Recipient(t.Context(), g.orgID, g.campaignID, g.rid)
		if err != nil {
			t.Fatal(err)
		}
		claimOnPage(t, pages.URL, r.ClaimPageID, g.gift)
	}
	tick() // the delivered emails

	for _, g := range []given{optIn, plain} {
		var delivered, others int
		for _, m := range localstack.ReadEmails(t, endpoint) {
			if len(m.Destination.To) == 0 || !strings.Contains(m.Destination.To[0], g.address) {
				continue
			}
			both := m.Body.HTML + "\n" + m.Body.Text
			if !strings.Contains(m.Subject, "ready") {
				others++
				if strings.Contains(both, g.code) {
					t.Errorf("%s: the email %q holds the code", g.address, m.Subject)
				}
				continue
			}
			delivered++
			if !strings.Contains(m.Body.HTML, "https://gifts.test/gift/") {
				t.Errorf("%s: the delivered email does not link the landing page", g.address)
			}
			for _, part := range []string{m.Body.HTML, m.Body.Text} {
				for _, needle := range []string{g.code, g.pin, g.url} {
					if got := strings.Contains(part, needle); got != (g.address == optIn.address) {
						t.Errorf("%s: delivered email part holds %q: %v, want %v", g.address, needle, got, !got)
					}
				}
			}
		}
		if delivered != 1 || others != 1 {
			t.Errorf("%s: %d delivered and %d other emails, want 1 and the invitation", g.address, delivered, others)
		}
	}

	// The opted-in organization's code is still nowhere else.
	var texts []string
	for _, path := range []string{"/api/campaigns/campaigns/" + optIn.campaignID + "/recipients/" + optIn.rid,
		"/api/campaigns/campaigns/" + optIn.campaignID + "/recipients"} {
		res := optIn.api.Do("GET", path, nil)
		texts = append(texts, string(res.Body))
	}
	texts = append(texts, logs.String())
	for i, text := range texts {
		if strings.Contains(text, optIn.code) || strings.Contains(text, optIn.pin) {
			t.Errorf("the code or PIN is in %s", []string{"the recipient", "the list", "the worker's log lines"}[i])
		}
	}
	if found := scanFor(t, s.Table(), []string{optIn.code, optIn.pin, "redeem-optin"}); len(found) > 0 {
		t.Errorf("the table holds the code in clear at %v", found)
	}
}
