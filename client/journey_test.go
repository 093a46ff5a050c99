package client_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/client"
	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/apidocs"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhooks"
)

// TestIntegratorJourney is a tenant's first integration, end to end, with only what the project gives
// a developer: the generated Go client for the API, the links of the invitation as the SES emulator
// received it, the recipient's pages as plain form posts, and a webhook receiver that verifies every
// signature exactly as docs/webhooks.md shows. Every answer must decode into its generated
// type with no field left over; the webhooks received must be the change feed's messages, each once;
// the wallet must end with what the campaign really spent.
func TestIntegratorJourney(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sesEndpoint := localstack.SESEndpoint(t)
	store := testenv.Store(t)
	_, key := testenv.Org(t, store, "journey", 5000)
	tag := strings.ToLower(gifting.NewID()) // this test's addresses in the shared SES emulator
	address := func(name string) string { return name + "-" + tag + "@example.com" }

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	baseURL := "http://" + ln.Addr().String()
	// A configuration set, as every deployment that sends mail names one.
	mailer, err := sesmail.New(app.Config{SenderAddress: "gifts@example.com", SESConfigurationSet: "gift-campaigns-test",
		SESEndpoint: sesEndpoint, PublicBaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	queue := jobs.NewLocal(testenv.Quiet)
	svc := service.New(store, service.Config{PublicBaseURL: baseURL, Logger: testenv.Quiet, Jobs: testenv.Calls.Queue(queue), Mailer: mailer,
		Webhooks: webhooks.Policy{AllowLocal: true}, Secrets: testenv.Secrets(t)})
	queue.Start(testenv.Calls.Runner(svc.RunJob))
	api := httpapi.NewServer(store, svc, httpapi.Config{Logger: testenv.Quiet, Docs: apidocs.New(httpapi.OpenAPIJSON())})
	srv := httptest.NewUnstartedServer(site.With(api.Handler(httpapi.Groups...), site.New(store, testenv.Quiet)))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	testenv.StreamChanges(t, store, svc)
	hooks := newReceiver(t)

	c, err := client.NewClientWithResponses(srv.URL, client.WithRequestEditorFn(apiKey(key)))
	if err != nil {
		t.Fatal(err)
	}

	// Webhooks first, so that every change of the journey reaches the receiver.
	var hookBody client.CreateWebhookJSONRequestBody
	decode(t, []byte(`{"url": "`+hooks.url+`", "events": ["*"], "description": "journey"}`), &hookBody)
	hook, err := c.CreateWebhookWithResponse(ctx, hookBody)
	want(t, "create webhook", err, hook.HTTPResponse, hook.Body, http.StatusCreated, hook.JSON201)
	hooks.setSecret(hook.JSON201.Data.Secret)
	ping, err := c.TestWebhookWithResponse(ctx, hook.JSON201.Data.WebhookId)
	want(t, "test webhook", err, ping.HTTPResponse, ping.Body, http.StatusOK, ping.JSON200)

	// A contact list and an import with a repeated email and bad rows: 207, each row reported.
	list, err := c.CreateContactListWithResponse(ctx, client.CreateContactListJSONRequestBody{Name: "Q3 prospects"})
	want(t, "create list", err, list.HTTPResponse, list.Body, http.StatusCreated, list.JSON201)
	listID := list.JSON201.Data.ListId
	var importBody client.AddContactsToListJSONRequestBody
	decode(t, []byte(`{"contacts": [
		{"mailId": "`+address("ada")+`", "firstName": "Ada", "lastName": "Lovelace", "jobTitle": "VP Engineering", "companyName": "Engines"},
		{"email": "`+address("grace")+`", "firstName": "Grace", "jobTitle": "Director of Engineering"},
		{"mailId": "`+strings.ToUpper(address("ada"))+`", "phoneNumber": "+15125550100"},
		{"mailId": "not-an-email"},
		{"firstName": "No email"}
	]}`), &importBody)
	imported, err := c.AddContactsToListWithResponse(ctx, listID, importBody)
	want(t, "bulk add", err, imported.HTTPResponse, imported.Body, http.StatusMultiStatus, imported.JSON207)
	if got := imported.JSON207.Data; got.Created != 2 || got.Merged != 1 || got.Failed != 2 {
		t.Fatalf("bulk add: created %d, merged %d, failed %d; want 2, 1, 2: %s", got.Created, got.Merged, got.Failed, imported.Body)
	}

	// A persona and the audience it builds.
	var personaBody client.CreatePersonaJSONRequestBody
	decode(t, []byte(`{"persona": {"name": "Engineering leaders", "job_titles": ["VP Engineering"]}}`), &personaBody)
	persona, err := c.CreatePersonaWithResponse(ctx, personaBody)
	want(t, "create persona", err, persona.HTTPResponse, persona.Body, http.StatusCreated, persona.JSON201)
	var audienceBody client.CreateAudienceJSONRequestBody
	decode(t, []byte(`{"name": "Engineering leaders", "icpId": "`+persona.JSON201.IcpPersona.IcpId+`"}`), &audienceBody)
	audience, err := c.CreateAudienceWithResponse(ctx, audienceBody)
	want(t, "create audience", err, audience.HTTPResponse, audience.Body, http.StatusCreated, audience.JSON201)
	queue.Wait()
	built, err := c.GetAudienceWithResponse(ctx, audience.JSON201.Data.AudienceId)
	want(t, "get audience", err, built.HTTPResponse, built.Body, http.StatusOK, built.JSON200)
	if built.JSON200.Data.Status != "ready" || built.JSON200.Data.TotalMatch != 1 {
		t.Fatalf("audience: %s, want ready with Ada alone", built.Body)
	}
	members, err := c.ListAudienceContactsWithResponse(ctx, audience.JSON201.Data.AudienceId, &client.ListAudienceContactsParams{})
	want(t, "audience contacts", err, members.HTTPResponse, members.Body, http.StatusOK, members.JSON200)

	// A gift and a template from the catalog, and a campaign of them.
	templates, err := c.ListTemplatesWithResponse(ctx, &client.ListTemplatesParams{})
	want(t, "list templates", err, templates.HTTPResponse, templates.Body, http.StatusOK, templates.JSON200)
	gift, err := c.GetGiftWithResponse(ctx, "gift-artisan-coffee")
	want(t, "get gift", err, gift.HTTPResponse, gift.Body, http.StatusOK, gift.JSON200)
	var campaignBody client.CreateCampaignJSONRequestBody
	decode(t, []byte(`{"name": "Q3 thank-you", "description": "Thanks for a great quarter", "campaignData": {
		"contactListId": "`+listID+`", "giftIds": ["gift-artisan-coffee"], "emailTemplateId": "tmpl-meeting-booker"}}`), &campaignBody)
	campaign, err := c.CreateCampaignWithResponse(ctx, &client.CreateCampaignParams{}, campaignBody)
	want(t, "create campaign", err, campaign.HTTPResponse, campaign.Body, http.StatusCreated, campaign.JSON201)
	campaignID := campaign.JSON201.Data.CampaignId
	price := int(campaign.JSON201.Data.CampaignData.CreditsPerRecipient)

	// Launch (the list's two contacts), then add one recipient by hand.
	launched, err := c.LaunchCampaignWithResponse(ctx, campaignID, &client.LaunchCampaignParams{})
	want(t, "launch", err, launched.HTTPResponse, launched.Body, http.StatusAccepted, launched.JSON202)
	queue.Wait()
	live, err := c.GetCampaignWithResponse(ctx, campaignID)
	want(t, "get campaign", err, live.HTTPResponse, live.Body, http.StatusOK, live.JSON200)
	if live.JSON200.Data.Status != "live" || live.JSON200.Data.TotalRecipients != 2 {
		t.Fatalf("after the launch: %s, want live with 2 recipients", live.Body)
	}
	var recipientBody client.AddRecipientJSONRequestBody
	decode(t, []byte(`{"contactDetails": {"email": "`+address("linus")+`", "firstName": "Linus"}, "sourceType": "api"}`), &recipientBody)
	added, err := c.AddRecipientWithResponse(ctx, campaignID, &client.AddRecipientParams{}, recipientBody)
	want(t, "add recipient", err, added.HTTPResponse, added.Body, http.StatusOK, added.JSON200)
	if !added.JSON200.EmailSent || added.JSON200.RemainingBalance != 5000-3*price {
		t.Fatalf("add recipient: %s, want the invitation sent and %d credits left", added.Body, 5000-3*price)
	}
	recipientID := added.JSON200.RecipientId

	// The invitation as the SES emulator received it leads to the landing page, which leads to the claim page.
	invitation := invitationTo(t, sesEndpoint, address("linus"))
	landing := regexp.MustCompile(`href="([^"]*/gift/[^"]*)"`).FindStringSubmatch(invitation.Body.HTML)
	if landing == nil || landing[1] != added.JSON200.LandingPageUrl {
		t.Fatalf("invitation: links %q, want the landing page %s", landing, added.JSON200.LandingPageUrl)
	}
	page := get(t, landing[1], http.StatusOK)
	claim := regexp.MustCompile(`href="(/claim/[^"]*)"`).FindStringSubmatch(page)
	if claim == nil || srv.URL+claim[1] != added.JSON200.ClaimPageUrl {
		t.Fatalf("landing page: claim link %q, want %s", claim, added.JSON200.ClaimPageUrl)
	}
	get(t, srv.URL+claim[1], http.StatusOK)
	post(t, srv.URL+claim[1], url.Values{"giftId": {"gift-artisan-coffee"}, "line1": {"12 Penguin Way"}, "city": {"Portland"},
		"state": {"OR"}, "zip": {"97201"}, "country": {"US"}}, http.StatusSeeOther)

	// The claim opened the recipient's order: the warehouse records its shipment, then reports the
	// parcel in transit and delivered; the recipient acknowledges and leaves feedback.
	claimed, err := c.GetRecipientWithResponse(ctx, campaignID, recipientID)
	want(t, "get claimed recipient", err, claimed.HTTPResponse, claimed.Body, http.StatusOK, claimed.JSON200)
	orderID, _ := claimed.JSON200.Data.ShipmentInfo["orderId"].(string)
	if claimed.JSON200.Data.Status != "processing" || orderID == "" {
		t.Fatalf("claimed recipient: %s, want processing with its order", claimed.Body)
	}
	shipped, err := c.ShipOrderWithResponse(ctx, orderID, client.ShipOrderJSONRequestBody{Carrier: "UPS", TrackingNumber: "1Z999AA10123456784"})
	want(t, "ship the order", err, shipped.HTTPResponse, shipped.Body, http.StatusOK, shipped.JSON200)
	for _, status := range []string{"in_transit", "delivered"} {
		var move client.MoveRecipientJSONRequestBody
		decode(t, []byte(`{"status": "`+status+`"}`), &move)
		moved, err := c.MoveRecipientWithResponse(ctx, campaignID, recipientID, move)
		want(t, "move to "+status, err, moved.HTTPResponse, moved.Body, http.StatusOK, moved.JSON200)
	}
	post(t, landing[1]+"/acknowledge", url.Values{}, http.StatusSeeOther)
	post(t, landing[1]+"/feedback", url.Values{"rating": {"like"}, "message": {"Lovely coffee"}}, http.StatusSeeOther)
	var feedbackBody client.AddRecipientFeedbackJSONRequestBody
	decode(t, []byte(`{"message": {"type": "note", "text": "Sent by our CRM"}}`), &feedbackBody)
	feedback, err := c.AddRecipientFeedbackWithResponse(ctx, campaignID, recipientID, feedbackBody)
	want(t, "feedback", err, feedback.HTTPResponse, feedback.Body, http.StatusOK, feedback.JSON200)
	recipient, err := c.GetRecipientWithResponse(ctx, campaignID, recipientID)
	want(t, "get recipient", err, recipient.HTTPResponse, recipient.Body, http.StatusOK, recipient.JSON200)
	if got := recipient.JSON200.Data; got.Status != "acknowledged" || len(got.Feedback.Message) != 2 {
		t.Fatalf("recipient: %s, want acknowledged with two feedback messages", recipient.Body)
	}

	// Completing the campaign refunds the two launched recipients who never claimed.
	complete, err := c.CompleteCampaignWithResponse(ctx, campaignID, client.CompleteCampaignJSONRequestBody{})
	want(t, "complete", err, complete.HTTPResponse, complete.Body, http.StatusOK, complete.JSON200)
	queue.Wait()
	metrics, err := c.GetCampaignMetricsWithResponse(ctx, campaignID)
	want(t, "metrics", err, metrics.HTTPResponse, metrics.Body, http.StatusOK, metrics.JSON200)
	if got := metrics.JSON200.Data; got.CreditsSpent != price || got.StatusCounts.Expired != 2 || got.StatusCounts.Acknowledged != 1 {
		t.Fatalf("metrics: %s, want %d credits spent, 2 expired, 1 acknowledged", metrics.Body, price)
	}
	wallet, err := c.GetWalletWithResponse(ctx, &client.GetWalletParams{})
	want(t, "wallet", err, wallet.HTTPResponse, wallet.Body, http.StatusOK, wallet.JSON200)
	ledger := wallet.JSON200.Data.Ledger.Items
	if wallet.JSON200.Data.Balance != 5000-price || len(ledger) != 5 || ledger[0].Type != "refund" || ledger[1].Type != "refund" {
		t.Fatalf("wallet: %s, want %d after a top-up, two debits and two refunds", wallet.Body, 5000-price)
	}

	// The reads a dashboard makes of what the journey left behind.
	grouped := true
	byStatus, err := c.ListCampaignRecipientsWithResponse(ctx, campaignID, &client.ListCampaignRecipientsParams{GroupBy: &grouped})
	want(t, "recipients by status", err, byStatus.HTTPResponse, byStatus.Body, http.StatusOK, byStatus.JSON200)
	express, err := c.ListExpressSendRecipientsWithResponse(ctx, campaignID, &client.ListExpressSendRecipientsParams{})
	want(t, "express-send recipients", err, express.HTTPResponse, express.Body, http.StatusOK, express.JSON200)
	guide, err := c.ListGuideRecipientsWithResponse(ctx, campaignID, &client.ListGuideRecipientsParams{})
	want(t, "guide recipients", err, guide.HTTPResponse, guide.Body, http.StatusOK, guide.JSON200)
	campaigns, err := c.ListCampaignsWithResponse(ctx, &client.ListCampaignsParams{})
	want(t, "campaigns", err, campaigns.HTTPResponse, campaigns.Body, http.StatusOK, campaigns.JSON200)
	contacts, err := c.ListContactsWithResponse(ctx, &client.ListContactsParams{ListId: &listID})
	want(t, "contacts", err, contacts.HTTPResponse, contacts.Body, http.StatusOK, contacts.JSON200)
	contact, err := c.GetContactWithResponse(ctx, added.JSON200.ContactId)
	want(t, "contact", err, contact.HTTPResponse, contact.Body, http.StatusOK, contact.JSON200)
	hookRead, err := c.GetWebhookWithResponse(ctx, hook.JSON201.Data.WebhookId)
	want(t, "webhook", err, hookRead.HTTPResponse, hookRead.Body, http.StatusOK, hookRead.JSON200)

	// The change feed holds every message, in order; the receiver got each of them once, verified.
	var feed []string
	var after *string
	for {
		limit := 4
		changes, err := c.ListChangesWithResponse(ctx, &client.ListChangesParams{After: after, Limit: &limit})
		want(t, "changes", err, changes.HTTPResponse, changes.Body, http.StatusOK, changes.JSON200)
		for _, m := range changes.JSON200.Data.Items {
			feed = append(feed, m.Id)
			// Recipient messages carry the recipient as it is when read (docs/webhooks.md).
			if m.Type == "recipient.created" && m.Data["recipientId"] == recipientID && m.Data["status"] != "acknowledged" {
				t.Errorf("change feed: recipient.created of %s says status %v, want its status now, acknowledged", recipientID, m.Data["status"])
			}
		}
		if len(changes.JSON200.Data.Items) == 0 {
			if len(feed) < 16 { // the feed serves records 5 s old: wait for the last ones
				time.Sleep(time.Second)
				continue
			}
			break
		}
		after = &changes.JSON200.Data.NextCursor
	}
	got := hooks.waitFor(t, len(feed)+1)
	for _, id := range feed {
		if !slices.Contains(got, id) {
			t.Errorf("webhook %s of the change feed was not delivered (delivered: %v)", id, got)
		}
	}
	deliveries, err := c.ListWebhookDeliveriesWithResponse(ctx, hook.JSON201.Data.WebhookId, &client.ListWebhookDeliveriesParams{})
	want(t, "deliveries", err, deliveries.HTTPResponse, deliveries.Body, http.StatusOK, deliveries.JSON200)
}

// invitationTo returns the invitation the SES emulator received for to, waiting a little for it.
func invitationTo(t *testing.T, endpoint, to string) localstack.Email {
	t.Helper()
	for range 50 {
		for _, m := range localstack.ReadEmails(t, endpoint) {
			if slices.Contains(m.Destination.To, to) {
				return m
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no email reached %s", to)
	return localstack.Email{}
}

// get reads a page as a browser would, and fails unless it answers status.
func get(t *testing.T, u string, status int) string {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %s", u, res.StatusCode, status, body)
	}
	return string(body)
}

// post submits a page's form as a browser would, following no redirect.
func post(t *testing.T, u string, form url.Values, status int) {
	t.Helper()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("POST %s: %d, want %d: %s", u, res.StatusCode, status, body)
	}
}

// receiver is a tenant's webhook endpoint: it verifies each request with docs/webhooks.md's code and keeps the
// ids of those that pass.
type receiver struct {
	url    string
	mu     sync.Mutex
	secret string
	ids    []string
	bad    []string
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		// docs/webhooks.md, "Signing".
		key, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.secret, "whsec_"))
		mac := hmac.New(sha256.New, key)
		mac.Write([]byte(req.Header.Get("webhook-id") + "." + req.Header.Get("webhook-timestamp") + "." + string(body)))
		want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
		ok := slices.ContainsFunc(strings.Fields(req.Header.Get("webhook-signature")), func(s string) bool {
			return hmac.Equal([]byte(s), []byte(want))
		})
		var msg client.ChangeMessage
		if !ok || json.Unmarshal(body, &msg) != nil || msg.Id != req.Header.Get("webhook-id") {
			r.bad = append(r.bad, string(body))
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		r.ids = append(r.ids, msg.Id)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/hooks"
	return r
}

func (r *receiver) setSecret(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secret = s
}

// waitFor waits until n messages arrived verified, failing on any that did not verify or came twice.
func (r *receiver) waitFor(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r.mu.Lock()
		ids, bad := slices.Clone(r.ids), slices.Clone(r.bad)
		r.mu.Unlock()
		if len(bad) > 0 {
			t.Fatalf("webhooks that the verification of docs/webhooks.md refuses: %q", bad)
		}
		if len(ids) >= n || time.Now().After(deadline) {
			seen := map[string]bool{}
			for _, id := range ids {
				if seen[id] {
					t.Errorf("webhook %s delivered twice", id)
				}
				seen[id] = true
			}
			if len(ids) < n {
				t.Fatalf("%d webhooks arrived, want %d: %v", len(ids), n, ids)
			}
			return ids
		}
		time.Sleep(50 * time.Millisecond)
	}
}
