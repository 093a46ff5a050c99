package httpapi_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// testKey makes a test key holding every scope with api's (live, admin)
// key, and checks it is shown as one.
func testKey(t *testing.T, api *testenv.API) string {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/api-keys", map[string]any{"name": "sandbox", "scopes": []string{"read", "write", "spend", "admin"},
		"mode": "test"})
	var env struct {
		Data struct {
			Key    string `json:"key"`
			Prefix string `json:"prefix"`
		} `json:"data"`
	}
	res.JSON(t, &env)
	if res.Status != http.StatusCreated || !strings.HasPrefix(env.Data.Key, gifting.TestAPIKeyPrefix) ||
		!strings.HasPrefix(env.Data.Prefix, gifting.TestAPIKeyPrefix) || !gifting.WellFormedAPIKey(env.Data.Key) {
		t.Fatalf("create a test key: %d %s", res.Status, res.Body)
	}
	return env.Data.Key
}

// sandboxSide is what one side (live or test) of an organization made:
// one resource of every kind.
type sandboxSide struct {
	orgID, email                                                 string
	gift, template, list, persona, audience, campaign, recipient string
	contact, webhook, keyID                                      string
}

// makeEverything creates one resource of every kind with api, for orgID
// (the campaign is set live in the table: a draft invites no one).
func makeEverything(t *testing.T, s *dynamo.Store, api *testenv.API, orgID, name, hookURL string) sandboxSide {
	t.Helper()
	side := sandboxSide{orgID: orgID, email: name + "@example.com"}
	side.gift = createOwnGift(t, api, name+" hamper", 10).GiftID
	side.template = createTemplate(t, api, name+" template", "outbound").TemplateID
	side.list = createList(t, api, name+" list")
	side.persona = createPersona(t, api, map[string]any{"name": name, "departments": []string{"Sales"}})
	res := api.Do("POST", "/api/campaigns/audience-lists", map[string]any{"name": name + " audience", "icpId": side.persona})
	var aud struct {
		Data struct {
			AudienceID string `json:"audienceId"`
		} `json:"data"`
	}
	res.JSON(t, &aud)
	if res.Status != http.StatusCreated {
		t.Fatalf("create audience: %d %s", res.Status, res.Body)
	}
	side.audience = aud.Data.AudienceID
	side.campaign = createCampaign(t, api, 40)
	testenv.SetCampaignStatus(t, s, orgID, side.campaign, campaign.Live)
	res = api.Do("POST", addPath(side.campaign), recipientBody(side.email, name))
	if res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	m := res.Map(t)
	side.recipient, side.contact = m["recipientId"].(string), m["contactId"].(string)
	side.webhook = createWebhook(t, api, hookURL, "*").Data.WebhookID
	var keys struct {
		Data struct {
			Items []struct {
				KeyID string `json:"keyId"`
			} `json:"items"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/api-keys", nil).JSON(t, &keys)
	side.keyID = keys.Data.Items[0].KeyID
	return side
}

// TestSandboxIsolatedBothWays: a live key and a test key of one
// organization each make a resource of every kind (contacts, lists,
// audiences, gifts, templates, campaigns, recipients, wallet, webhooks,
// keys); neither key reads or changes the other side's (404, absent from
// its lists), both ways, and each wallet moved only by its own side.
func TestSandboxIsolatedBothWays(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "sbx-iso", 1000)
	live := testenv.NewAPI(t, s, key)
	test := live.WithKey(testKey(t, live))
	t.Cleanup(func() {
		testenv.AssertLedgerBalanced(t, dynamo.New(testenv.Client(t), s.Table()), gifting.SandboxOrgID(orgID))
	})
	rc := newReceiver(t)
	sides := map[string]sandboxSide{
		"live": makeEverything(t, s, live, orgID, "livey", rc.srv.URL+"/live"),
		"test": makeEverything(t, s, test, gifting.SandboxOrgID(orgID), "testy", rc.srv.URL+"/test"),
	}
	clients := map[string]*testenv.API{"live": live, "test": test}
	for _, tt := range []struct{ of, by string }{{"live", "test"}, {"test", "live"}} {
		a, by := sides[tt.of], clients[tt.by]
		for kind, path := range map[string]string{
			"gift":      "/api/campaigns/gifts/" + a.gift,
			"template":  "/api/campaigns/templates/" + a.template,
			"list":      "/api/campaigns/contact-lists/" + a.list,
			"persona":   "/api/campaigns/icp-personas/" + a.persona,
			"audience":  "/api/campaigns/audience-lists/" + a.audience,
			"campaign":  "/api/campaigns/" + a.campaign,
			"recipient": "/api/campaigns/campaigns/" + a.campaign + "/recipients/" + a.recipient,
			"contact":   "/api/campaigns/contacts/" + a.contact,
			"webhook":   "/api/campaigns/webhooks/" + a.webhook,
		} {
			if res := clients[tt.of].Do("GET", path, nil); res.Status != http.StatusOK {
				t.Errorf("%s reads its own %s: %d %s", tt.of, kind, res.Status, res.Body)
			}
			if res := by.Do("GET", path, nil); res.Status != http.StatusNotFound {
				t.Errorf("a %s key read the %s side's %s: %d %s", tt.by, tt.of, kind, res.Status, res.Body)
			}
		}
		// Changes are refused alike, and change nothing.
		for _, w := range []struct{ method, path string }{
			{"DELETE", "/api/campaigns/gifts/" + a.gift},
			{"DELETE", "/api/campaigns/contact-lists/" + a.list},
			{"DELETE", "/api/campaigns/webhooks/" + a.webhook},
			{"DELETE", "/api/campaigns/api-keys/" + a.keyID},
			{"POST", addPath(a.campaign)},
		} {
			if res := by.Do(w.method, w.path, recipientBody("intruder@example.com", "In")); res.Status != http.StatusNotFound {
				t.Errorf("a %s key's %s %s: %d %s, want 404", tt.by, w.method, w.path, res.Status, res.Body)
			}
		}
		for _, list := range []string{"/api/campaigns/contacts", "/api/campaigns/gifts?limit=100", "/api/campaigns/templates?limit=100",
			"/api/campaigns/contact-lists", "/api/campaigns/audience-lists", "/api/campaigns/campaigns", "/api/campaigns/webhooks",
			"/api/campaigns/wallet?limit=100"} {
			res := by.Do("GET", list, nil)
			for _, id := range []string{a.email, a.gift, a.template, a.list, a.audience, a.campaign, a.webhook} {
				if res.Status != http.StatusOK || strings.Contains(string(res.Body), id) {
					t.Errorf("a %s key's GET %s (%d) shows the %s side's %s", tt.by, list, res.Status, tt.of, id)
				}
			}
		}
		// The keys listed are the side's own (a test key's createdBy may
		// name the live key that made it: that is where it came from).
		var keys struct {
			Data struct {
				Items []struct {
					KeyID string `json:"keyId"`
				} `json:"items"`
			} `json:"data"`
		}
		by.Do("GET", "/api/campaigns/api-keys", nil).JSON(t, &keys)
		for _, k := range keys.Data.Items {
			if k.KeyID == a.keyID {
				t.Errorf("a %s key lists the %s side's key %s", tt.by, tt.of, a.keyID)
			}
		}
	}
	// Each wallet paid for its own recipient only: the test one from its
	// free credits, the live one from its own.
	if w := walletOf(t, live, ""); w.Balance != 1000-40 {
		t.Errorf("live wallet %d, want %d", w.Balance, 1000-40)
	}
	if w := walletOf(t, test, ""); w.Balance != access.SandboxCredits-40 {
		t.Errorf("sandbox wallet %d, want %d", w.Balance, access.SandboxCredits-40)
	}
	// Each side's usage is its own: the live organization is billed for
	// its recipient and its debit only.
	month := access.MonthOf(s.Now())
	liveUsage, err := s.Usage(t.Context(), orgID, month)
	if err != nil {
		t.Fatal(err)
	}
	testUsage, err := s.Usage(t.Context(), gifting.SandboxOrgID(orgID), month)
	if err != nil {
		t.Fatal(err)
	}
	if liveUsage.RecipientsAdded != 1 || liveUsage.CreditsSpent != 40 || liveUsage.CreditsToppedUp != 1000 ||
		testUsage.RecipientsAdded != 1 || testUsage.CreditsSpent != 40 || testUsage.CreditsToppedUp != access.SandboxCredits {
		t.Errorf("usage live %+v, sandbox %+v: each must count its own side only", liveUsage, testUsage)
	}
	// The operator's list (billing) has the live organization and not its
	// sandbox, whose usage is its own.
	for after, listed := "", false; ; {
		page, err := access.NewApp(s).Orgs(t.Context(), "", after, access.MaxOrgPage)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Orgs {
			listed = listed || o.Org.OrgID == orgID
			if gifting.IsSandboxOrg(o.Org.OrgID) {
				t.Errorf("the operator lists a sandbox: %s", o.Org.OrgID)
			}
		}
		if after = page.Next; after == "" {
			if !listed {
				t.Errorf("the operator's list lacks %s", orgID)
			}
			break
		}
	}
	// A sandbox is suspended with its live organization.
	if err := access.NewApp(s).Suspend(t.Context(), orgID); err != nil {
		t.Fatal(err)
	}
	_, err = access.NewApp(s).Resolve(t.Context(), test.Key)
	if gifting.ErrorCode(err) != access.CodeOrganizationSuspended {
		t.Errorf("a test key of a suspended organization resolves: %v", err)
	}
	if err := access.NewApp(s).Resume(t.Context(), orgID); err != nil {
		t.Fatal(err)
	}
	// A test key makes test keys only; the sandbox's routes refuse a live key.
	res := test.Do("POST", "/api/campaigns/api-keys", map[string]any{"name": "x", "scopes": []string{"read"}, "mode": "live"})
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	for _, r := range []struct{ method, path string }{{"POST", "/api/campaigns/sandbox/reset"}, {"GET", "/api/campaigns/sandbox/emails"},
		{"POST", "/api/campaigns/sandbox/recipients/" + sides["live"].recipient + "/advance"}} {
		assertError(t, live.Do(r.method, r.path, map[string]any{"status": "shipped", "campaignId": sides["live"].campaign}),
			http.StatusForbidden, "TEST_KEY_REQUIRED")
	}
}

// capturedEmails reads a sandbox's captured emails through the API, every
// page of limit.
func capturedEmails(t *testing.T, api *testenv.API, limit int) []map[string]any {
	t.Helper()
	var all []map[string]any
	for cursor := ""; ; {
		path := "/api/campaigns/sandbox/emails?limit=" + strconv.Itoa(limit)
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := api.Do("GET", path, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
		}
		var env struct {
			Data struct {
				Items      []map[string]any `json:"items"`
				NextCursor string           `json:"nextCursor"`
			} `json:"data"`
		}
		res.JSON(t, &env)
		all = append(all, env.Data.Items...)
		if env.Data.NextCursor == "" {
			return all
		}
		cursor = env.Data.NextCursor
	}
}

// TestSandboxEmailsAreCapturedNotSent: with the SES emulator as the
// service's mailer, a sandbox's invitations never reach the emulator's
// store and are read back, page by page, at GET /sandbox/emails, while
// the live organization's invitation reaches the emulator.
func TestSandboxEmailsAreCapturedNotSent(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "sbx-mail", 1000)
	live := sesAPI(t, s, key)
	test := live.WithKey(testKey(t, live))
	t.Cleanup(func() {
		testenv.AssertLedgerBalanced(t, dynamo.New(testenv.Client(t), s.Table()), gifting.SandboxOrgID(orgID))
	})
	liveCampaign, testCampaign := createCampaign(t, live, 40), createCampaign(t, test, 40)
	testenv.SetCampaignStatus(t, s, orgID, liveCampaign, campaign.Live)
	testenv.SetCampaignStatus(t, s, gifting.SandboxOrgID(orgID), testCampaign, campaign.Live)
	addresses := []string{"sbx-one@example.com", "sbx-two@example.com", "sbx-three@example.com"}
	recipients := map[string]string{}
	for _, a := range addresses {
		res := test.Do("POST", addPath(testCampaign), recipientBody(a, "Sandy"))
		if res.Status != http.StatusOK || res.Map(t)["emailSent"] != true {
			t.Fatalf("sandbox add-recipient: %d %s", res.Status, res.Body)
		}
		recipients[a] = res.Map(t)["recipientId"].(string)
	}
	if res := live.Do("POST", addPath(liveCampaign), recipientBody("sbx-live@example.com", "Liv")); res.Status != http.StatusOK {
		t.Fatalf("live add-recipient: %d %s", res.Status, res.Body)
	}
	got := capturedEmails(t, test, 2) // two pages
	if len(got) != len(addresses) {
		t.Fatalf("captured %d emails, want %d: %v", len(got), len(addresses), got)
	}
	for i, e := range got {
		want := addresses[len(addresses)-1-i] // newest first
		if e["to"] != want || e["recipientId"] != recipients[want] || e["campaignId"] != testCampaign || e["kind"] == "" ||
			e["subject"] == "" || !strings.Contains(e["html"].(string), "<") || e["text"] == "" || e["sentAt"] == "" {
			t.Errorf("captured email %d: %v, want the invitation of %s", i, e, want)
		}
	}
	sentLive := false
	for _, e := range localstack.ReadEmails(t, localstack.SESEndpoint(t)) {
		for _, to := range e.Destination.To {
			if strings.HasPrefix(to, "sbx-") && to != "sbx-live@example.com" {
				t.Errorf("a sandbox email reached the SES emulator: to %s", to)
			}
			sentLive = sentLive || to == "sbx-live@example.com"
		}
	}
	if !sentLive {
		t.Error("the live invitation did not reach the SES emulator")
	}
	if live := capturedEmails(t, test, 100); len(live) != len(addresses) {
		t.Errorf("the live email was captured too: %v", live)
	}
	assertError(t, test.Do("GET", "/api/campaigns/sandbox/emails?cursor=nope", nil), http.StatusBadRequest, "VALIDATION_FAILED")
}

// TestSandboxTakesTheBrandingOfItsOrganization: the sandbox made by the
// first test key looks as the live organization does then; its own
// branding, set with the test key afterwards, leaves the live one as it is.
func TestSandboxTakesTheBrandingOfItsOrganization(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "sbx-brand", 0)
	live := testenv.NewAPI(t, s, key)
	in := map[string]any{"displayName": "Acme", "logoUrl": "https://cdn.acme.test/logo.png", "brandColor": "#0B5394", "replyTo": "gifts@acme.test"}
	if res := live.Do("PUT", "/api/campaigns/organization/branding", in); res.Status != http.StatusOK {
		t.Fatalf("set branding: %d %s", res.Status, res.Body)
	}
	test := live.WithKey(testKey(t, live))
	displayName := func(api *testenv.API) string {
		var env struct {
			Data struct {
				DisplayName string `json:"displayName"`
			} `json:"data"`
		}
		api.Do("GET", "/api/campaigns/organization/branding", nil).JSON(t, &env)
		return env.Data.DisplayName
	}
	if got := displayName(test); got != "Acme" {
		t.Errorf("the sandbox's branding names %q, want the live Acme", got)
	}
	in["displayName"] = "Acme sandbox"
	if res := test.Do("PUT", "/api/campaigns/organization/branding", in); res.Status != http.StatusOK {
		t.Fatalf("set the sandbox's branding: %d %s", res.Status, res.Body)
	}
	if live, test := displayName(live), displayName(test); live != "Acme" || test != "Acme sandbox" {
		t.Errorf("branding live %q, sandbox %q", live, test)
	}
}

// TestErasureInASandboxReachesItsCapturedEmails: a sandbox keeps the
// emails it would have sent; erasing a person there scrubs theirs (the
// address, and the name wherever the HTML escaped it) and leaves the other
// recipient's email as it was.
func TestErasureInASandboxReachesItsCapturedEmails(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "sbx-erase", 0)
	test := sesAPI(t, s, key)
	test = test.WithKey(testKey(t, test))
	t.Cleanup(func() {
		testenv.AssertLedgerBalanced(t, dynamo.New(testenv.Client(t), s.Table()), gifting.SandboxOrgID(orgID))
	})
	c := createCampaign(t, test, 40)
	testenv.SetCampaignStatus(t, s, gifting.SandboxOrgID(orgID), c, campaign.Live)
	person := map[string]any{"email": "darcy.obrien@example.com", "firstName": "D'Arcy", "lastName": "O'Brien-Tierney"}
	res := test.Do("POST", addPath(c), map[string]any{"contactDetails": person})
	if res.Status != http.StatusOK || res.Map(t)["emailSent"] != true {
		t.Fatalf("add the person: %d %s", res.Status, res.Body)
	}
	contactID := res.Map(t)["contactId"].(string)
	if res := test.Do("POST", addPath(c), recipientBody("someone.else@example.com", "Maeve")); res.Status != http.StatusOK {
		t.Fatalf("add another: %d %s", res.Status, res.Body)
	}
	before := capturedEmails(t, test, 100)
	if len(before) != 2 || !strings.Contains(before[1]["html"].(string), "Hi D&#39;Arcy") {
		t.Fatalf("captured before the erasure: %v", before)
	}

	res = test.Do("POST", "/api/campaigns/contacts/"+contactID+"/erase", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("erase: %d %s", res.Status, res.Body)
	}
	if n := erasedCounts(t, res)["sandboxEmail"]; n != 1 {
		t.Errorf("the receipt counts %d captured emails, want the person's 1: %s", n, res.Body)
	}
	after := capturedEmails(t, test, 100)
	if len(after) != 2 {
		t.Fatalf("captured after the erasure: %d emails, want 2", len(after))
	}
	for _, e := range after {
		text := strings.ToLower(fmt.Sprint(e))
		for _, v := range []string{"darcy.obrien", "d'arcy", "d&#39;arcy", "o'brien-tierney", "o&#39;brien-tierney"} {
			if strings.Contains(text, v) {
				t.Errorf("a captured email still holds %q: %v", v, e)
			}
		}
	}
	if other := after[0]; other["to"] != "someone.else@example.com" || !strings.Contains(other["html"].(string), "Maeve") ||
		fmt.Sprint(other) != fmt.Sprint(before[0]) {
		t.Errorf("the other recipient's captured email changed: %v, was %v", other, before[0])
	}
}
