package httpapi_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// easyPostSecret has characters whose NFKD form differs (é composed, the
// ﬁ ligature, ①), so a signature keyed with the secret as typed would not
// verify: EasyPost keys the HMAC with the normalized form.
const easyPostSecret = "whsec-s\u00e9cret-\ufb01le-\u2460-Q7p"

// easyPostSignature is the X-Hmac-Signature EasyPost sends, computed as
// its documentation and client libraries do: "hmac-sha256-hex=" and the
// lower-case hex HMAC-SHA256 of the raw body, keyed with the UTF-8 bytes
// of the secret normalized to NFKD.
func easyPostSignature(body []byte, secret string) string {
	mac := hmac.New(sha256.New, []byte(norm.NFKD.String(secret)))
	mac.Write(body)
	return "hmac-sha256-hex=" + hex.EncodeToString(mac.Sum(nil))
}

// scan is one tracking_details entry of a tracker.
type scan struct {
	status, message string
	at              time.Time
}

// trackerEvent is an EasyPost Event of type typ (tracker.created,
// tracker.updated, …) whose Tracker says status, last updated at updated,
// with its estimated delivery (nil: none) and scans, as EasyPost sends it.
func trackerEvent(t *testing.T, typ, code, status string, updated time.Time, est *time.Time, scans ...scan) []byte {
	t.Helper()
	details := []map[string]any{}
	for _, s := range scans {
		details = append(details, map[string]any{"object": "TrackingDetail", "message": s.message, "status": s.status,
			"datetime": s.at.Format(time.RFC3339), "source": "UPS",
			"tracking_location": map[string]any{"object": "TrackingLocation", "city": "Chicago", "state": "IL", "country": "US", "zip": "60601"}})
	}
	tracker := map[string]any{"id": "trk_" + code, "object": "Tracker", "mode": "test", "tracking_code": code, "carrier": "UPS",
		"status": status, "public_url": "https://track.easypost.com/djE6dHJrXz" + code, "updated_at": updated.Format(time.RFC3339),
		"created_at": updated.Add(-time.Hour).Format(time.RFC3339), "tracking_details": details, "est_delivery_date": nil}
	if est != nil {
		tracker["est_delivery_date"] = est.Format(time.RFC3339)
	}
	body, err := json.Marshal(map[string]any{"id": "evt_" + status + updated.Format("150405"), "object": "Event", "mode": "test",
		"description": typ, "previous_attributes": map[string]any{}, "pending_urls": []string{}, "completed_urls": []string{},
		"created_at": updated.Format(time.RFC3339), "updated_at": updated.Format(time.RFC3339), "result": tracker})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

func easyPostEventsPath(orgID string) string {
	return "/api/campaigns/integrations/easypost/" + orgID + "/events"
}

// postEvent sends body to orgID's events URL with no API key, as EasyPost
// does, with signature in X-Hmac-Signature ("" sends none).
func postEvent(api *testenv.API, orgID string, body []byte, signature string) testenv.Response {
	var headers []string
	if signature != "" {
		headers = []string{"X-Hmac-Signature", signature}
	}
	return api.WithKey("").Do("POST", easyPostEventsPath(orgID), string(body), headers...)
}

// eventResult is the data of an events answer.
type eventResult struct {
	Data struct {
		Applied     bool   `json:"applied"`
		OrderID     string `json:"orderId"`
		OrderStatus string `json:"orderStatus"`
		Reason      string `json:"reason"`
	} `json:"data"`
}

// sendEvent sends body signed with secret and returns what it did,
// failing unless the answer is 200.
func sendEvent(t *testing.T, api *testenv.API, orgID string, body []byte, secret string) eventResult {
	t.Helper()
	res := postEvent(api, orgID, body, easyPostSignature(body, secret))
	var out eventResult
	res.JSON(t, &out)
	if res.Status != http.StatusOK {
		t.Fatalf("signed event: %d %s; want 200", res.Status, res.Body)
	}
	return out
}

// setEasyPostSecret sets the organization's secret through the API.
func setEasyPostSecret(t *testing.T, api *testenv.API, secret string) {
	t.Helper()
	if res := api.Do("PUT", "/api/campaigns/integrations/easypost", map[string]any{"webhookSecret": secret}); res.Status != http.StatusOK {
		t.Fatalf("PUT the EasyPost secret: %d %s", res.Status, res.Body)
	}
}

// sealing serves f with the KMS emulator's key (the webhooks function's
// sealer), its logs kept in logs.
func (f *orderFixture) sealing(t *testing.T, logs *logLines) *orderFixture {
	f.api = sealingAPI(t, f.s, f.api.Key, logs)
	return f
}

// trackedFixture sets f's EasyPost secret and ships one recipient's order
// by UPS with number; it returns the recipient's API path and the order's
// id.
func trackedFixture(t *testing.T, f *orderFixture, number string) (recipientPath, orderID string) {
	t.Helper()
	setEasyPostSecret(t, f.api, easyPostSecret)
	r := f.claimed(t, "jane@example.com", mainStreet)
	orderID = orderIDOf(t, r)
	if res := f.api.Do("POST", "/api/campaigns/orders/"+orderID+"/shipments",
		map[string]any{"carrier": "UPS", "trackingNumber": number}); res.Status != http.StatusOK {
		t.Fatalf("shipment: %d %s", res.Status, res.Body)
	}
	return "/api/campaigns/campaigns/" + f.campaignID + "/recipients/" + r.RecipientID, orderID
}

func (f *orderFixture) order(t *testing.T, id string) wire.Order {
	t.Helper()
	var o orderEnvelope
	if res := f.api.Do("GET", "/api/campaigns/orders/"+id, nil); res.Status != http.StatusOK {
		t.Fatalf("GET order: %d %s", res.Status, res.Body)
	} else {
		res.JSON(t, &o)
	}
	return o.Data
}

func (f *orderFixture) recipient(t *testing.T, path string) wire.Recipient {
	t.Helper()
	var rc struct {
		Data wire.Recipient `json:"data"`
	}
	f.api.Do("GET", path, nil).JSON(t, &rc)
	return rc.Data
}

// TestEasyPostSecretIsWriteOnly: the secret is set by an admin key only,
// checked, never answered, sealed at rest and never logged; GET says only
// whether it is set, when, and the events path to give EasyPost.
func TestEasyPostSecretIsWriteOnly(t *testing.T) {
	t.Parallel()
	logs := &logLines{}
	f := newOrderFixture(t).sealing(t, logs)
	const path = "/api/campaigns/integrations/easypost"
	var got struct {
		Data struct {
			WebhookSecretSet bool       `json:"webhookSecretSet"`
			UpdatedAt        *time.Time `json:"updatedAt"`
			EventsPath       string     `json:"eventsPath"`
		} `json:"data"`
	}
	f.api.Do("GET", path, nil).JSON(t, &got)
	if got.Data.WebhookSecretSet || got.Data.UpdatedAt != nil || got.Data.EventsPath != easyPostEventsPath(f.orgID) {
		t.Fatalf("GET before any secret: %+v; want not set, with the events path", got.Data)
	}
	var key struct {
		Data struct {
			Key string `json:"key"`
		} `json:"data"`
	}
	f.api.Do("POST", "/api/campaigns/api-keys", map[string]any{"name": "ops", "scopes": []string{"read", "write", "spend"}}).JSON(t, &key)
	for _, method := range []string{"GET", "PUT"} {
		if res := f.api.WithKey(key.Data.Key).Do(method, path, map[string]any{"webhookSecret": "x"}); res.Status != http.StatusForbidden {
			t.Errorf("%s with a key without admin: %d %s; want 403", method, res.Status, res.Body)
		}
	}
	for _, bad := range []map[string]any{{}, {"webhookSecret": ""}, {"webhookSecret": "pasted\n"}, {"webhookSecret": strings.Repeat("a", 257)}} {
		if res := f.api.Do("PUT", path, bad); res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "webhookSecret") {
			t.Errorf("PUT %v: %d %s; want 400 naming webhookSecret", bad, res.Status, res.Body)
		}
	}
	res := f.api.Do("PUT", path, map[string]any{"webhookSecret": easyPostSecret})
	res.JSON(t, &got)
	if res.Status != http.StatusOK || !got.Data.WebhookSecretSet || got.Data.UpdatedAt == nil {
		t.Fatalf("PUT: %d %s; want 200, set, with its time", res.Status, res.Body)
	}
	again := f.api.Do("GET", path, nil)
	again.JSON(t, &got)
	if !got.Data.WebhookSecretSet || got.Data.UpdatedAt == nil {
		t.Errorf("GET after PUT: %s; want set", again.Body)
	}
	forms := []string{easyPostSecret, norm.NFKD.String(easyPostSecret), "Q7p"}
	for _, b := range [][]byte{res.Body, again.Body} {
		if strings.Contains(string(b), "Q7p") {
			t.Errorf("an answer holds the secret: %s", b)
		}
	}
	if found := scanFor(t, f.s.Table(), forms); len(found) > 0 {
		t.Errorf("the secret is stored in the clear at %v", found)
	}
	if strings.Contains(logs.String(), "Q7p") {
		t.Errorf("the logs hold the secret: %s", logs.String())
	}
	// Another instance, whose sealer has never seen the data key (in AWS,
	// a cold webhooks function asks KMS to decrypt it), verifies an event.
	cold := testenv.NewAPI(t, f.s, "")
	body := trackerEvent(t, "tracker.created", "1ZNOSHIPMENT", "pre_transit", time.Now().UTC().Add(-time.Minute), nil)
	if got := sendEvent(t, cold, f.orgID, body, easyPostSecret); got.Data.Applied || got.Data.Reason == "" {
		t.Errorf("a signed event for no shipment, at a cold instance: %+v; want 200, nothing applied, the reason", got.Data)
	}
}

// TestEasyPostEventsMoveTheOrderForwardOnly: events signed as EasyPost
// signs them move a shipped order and its recipient to in_transit, then
// delivered, keeping the scans and the estimated delivery and announcing
// each move once; a replay, an older event, a later event with an
// earlier status and another type of event change nothing; an unsigned
// or wrongly signed event is 401 and changes nothing.
func TestEasyPostEventsMoveTheOrderForwardOnly(t *testing.T) {
	t.Parallel()
	logs := &logLines{}
	f := newOrderFixture(t).sealing(t, logs)
	const number = "1Z999AA10123456784"
	rpath, id := trackedFixture(t, f, number)
	base := time.Now().UTC().Truncate(time.Second).Add(-3 * time.Hour)
	label := scan{"pre_transit", "Shipping label created", base.Add(-10 * time.Minute)}
	departed := scan{"in_transit", "Departed facility", base.Add(50 * time.Minute)}
	est := base.Add(48 * time.Hour)

	created := trackerEvent(t, "tracker.created", number, "pre_transit", base, nil, label)
	if got := sendEvent(t, f.api, f.orgID, created, easyPostSecret); got.Data.OrderID != id || got.Data.OrderStatus != "shipped" {
		t.Errorf("tracker.created: %+v; want order %s still shipped", got.Data, id)
	}
	moving := trackerEvent(t, "tracker.updated", number, "in_transit", base.Add(time.Hour), &est, label, departed)
	if got := sendEvent(t, f.api, f.orgID, moving, easyPostSecret); !got.Data.Applied || got.Data.OrderStatus != "in_transit" {
		t.Fatalf("in_transit: %+v; want applied, in_transit", got.Data)
	}
	o := f.order(t, id)
	sh := o.Shipments[0]
	if o.Status != "in_transit" || sh.EstimatedDeliveryAt == nil || !sh.EstimatedDeliveryAt.Equal(est) || len(sh.Events) != 2 ||
		sh.Events[1].Message != "Departed facility" || !strings.HasPrefix(sh.TrackingURL, "https://track.easypost.com/") {
		t.Errorf("order after in_transit: %+v; want in_transit with the estimate, both scans and EasyPost's tracking page", o)
	}
	if r := f.recipient(t, rpath); r.Status != gifting.RecipientInTransit || r.ShipmentInfo["orderStatus"] != "in_transit" ||
		r.ShipmentInfo["estimatedDeliveryAt"] == nil {
		t.Errorf("recipient after in_transit: %s %v; want in_transit with the estimate", r.Status, r.ShipmentInfo)
	}

	// A replay, an older event and refused events leave the order as it is.
	older := trackerEvent(t, "tracker.updated", number, "pre_transit", base.Add(30*time.Minute), nil, label)
	for name, body := range map[string][]byte{"the same event again": moving, "an older event": older} {
		if got := sendEvent(t, f.api, f.orgID, body, easyPostSecret); got.Data.Applied || got.Data.OrderStatus != "in_transit" {
			t.Errorf("%s: %+v; want not applied, still in_transit", name, got.Data)
		}
	}
	delivered := scan{"delivered", "Delivered, front door", base.Add(110 * time.Minute)}
	done := trackerEvent(t, "tracker.updated", number, "delivered", base.Add(2*time.Hour), &est, label, departed, delivered)
	for name, sig := range map[string]string{
		"unsigned": "", "signed with another secret": easyPostSignature(done, "whsec-another"),
		"keyed with the secret as typed, not NFKD": "hmac-sha256-hex=" + hexHMAC(done, easyPostSecret),
		"signed for another body":                  easyPostSignature(moving, easyPostSecret),
	} {
		if res := postEvent(f.api, f.orgID, done, sig); res.Status != http.StatusUnauthorized {
			t.Errorf("%s: %d %s; want 401", name, res.Status, res.Body)
		}
	}
	if after := f.order(t, id); after.Status != "in_transit" || !after.UpdatedAt.Equal(o.UpdatedAt) {
		t.Errorf("the order changed without a good signature: %+v, was %+v", after, o)
	}

	if got := sendEvent(t, f.api, f.orgID, done, easyPostSecret); !got.Data.Applied || got.Data.OrderStatus != "delivered" {
		t.Fatalf("delivered: %+v; want applied, delivered", got.Data)
	}
	late := trackerEvent(t, "tracker.updated", number, "in_transit", base.Add(150*time.Minute), &est, label, departed)
	sendEvent(t, f.api, f.orgID, late, easyPostSecret)
	other := []byte(`{"id":"evt_b","object":"Event","description":"batch.updated","result":{"object":"Batch","id":"batch_1"}}`)
	if got := sendEvent(t, f.api, f.orgID, other, easyPostSecret); got.Data.Applied || got.Data.Reason == "" {
		t.Errorf("batch.updated: %+v; want 200, not applied, with the reason", got.Data)
	}
	o = f.order(t, id)
	if o.Status != "delivered" || o.DeliveredAt == nil || !o.DeliveredAt.Equal(delivered.at) {
		t.Errorf("order at the end: %s delivered at %v; want delivered at the delivered scan's time %v", o.Status, o.DeliveredAt, delivered.at)
	}
	if r := f.recipient(t, rpath); r.Status != gifting.RecipientDelivered || r.ShipmentInfo["orderStatus"] != "delivered" {
		t.Errorf("recipient at the end: %s %v; want delivered", r.Status, r.ShipmentInfo)
	}
	for typ, want := range map[string]int{gifting.ChangeOrderShipped: 1, gifting.ChangeOrderInTransit: 1, gifting.ChangeOrderDelivered: 1} {
		if n := countMessages(t, f.s, f.orgID, typ); n != want {
			t.Errorf("%d %s messages; want %d", n, typ, want)
		}
	}
	if strings.Contains(logs.String(), "Q7p") {
		t.Errorf("the logs hold the secret")
	}
}

// hexHMAC is the hex HMAC-SHA256 of body keyed with secret's bytes as
// they are (no normalization).
func hexHMAC(body []byte, secret string) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// TestEasyPostReturnToSenderFailsTheOrderAndReturnsTheUnit: a parcel
// returned to sender fails the order and puts its unit back on the shelf,
// once however often the event comes; the recipient keeps its state and
// shows the failure through its order.
func TestEasyPostReturnToSenderFailsTheOrderAndReturnsTheUnit(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t).sealing(t, &logLines{})
	const number = "1Z999AA10000000042"
	rpath, id := trackedFixture(t, f, number)
	shipped := f.inventory(t)
	base := time.Now().UTC().Truncate(time.Second).Add(-2 * time.Hour)
	sendEvent(t, f.api, f.orgID, trackerEvent(t, "tracker.updated", number, "in_transit", base, nil,
		scan{"in_transit", "Departed facility", base.Add(-time.Minute)}), easyPostSecret)
	returned := trackerEvent(t, "tracker.updated", number, "return_to_sender", base.Add(time.Hour), nil,
		scan{"in_transit", "Departed facility", base.Add(-time.Minute)}, scan{"return_to_sender", "Refused by recipient", base.Add(50 * time.Minute)})
	for range 2 {
		if got := sendEvent(t, f.api, f.orgID, returned, easyPostSecret); got.Data.OrderStatus != "failed" {
			t.Fatalf("return_to_sender: %+v; want the order failed", got.Data)
		}
	}
	if o := f.order(t, id); o.Status != "failed" || o.FailedAt == nil {
		t.Errorf("order: %s, failedAt %v; want failed", o.Status, o.FailedAt)
	}
	if inv := f.inventory(t); inv.Available != shipped.Available+1 || inv.Total != shipped.Total+1 || inv.Reserved != shipped.Reserved {
		t.Errorf("inventory %+v after the return (sent twice); want one unit back on %+v", inv, shipped)
	}
	if r := f.recipient(t, rpath); r.Status != gifting.RecipientInTransit || r.ShipmentInfo["orderStatus"] != "failed" {
		t.Errorf("recipient: %s %v; want in_transit still, its order failed", r.Status, r.ShipmentInfo)
	}
	if n := countMessages(t, f.s, f.orgID, gifting.ChangeOrderFailed); n != 1 {
		t.Errorf("%d order.failed messages; want 1", n)
	}
}

// TestEasyPostEventsStayInTheirOrganization: an organization's events URL
// reaches only its own shipments: another organization's tracking number
// sent there, signed with its secret, changes nothing (200, so EasyPost
// does not retry), and a signature of another organization's secret is
// 401; an organization with no secret and one that does not exist answer
// exactly as a wrong signature does.
func TestEasyPostEventsStayInTheirOrganization(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	acme, globex := orderFixtureOn(t, s, "acme"), orderFixtureOn(t, s, "globex")
	// One handler for both, as one function serves every organization.
	acme.sealing(t, &logLines{})
	globex.api = acme.api.WithKey(globex.api.Key)
	setEasyPostSecret(t, acme.api, easyPostSecret)
	const globexSecret = "whsec-globex-secret"
	const number = "1ZGLOBEX0000000001"
	_, id := trackedFixture(t, globex, number)
	setEasyPostSecret(t, globex.api, globexSecret)
	at := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
	done := trackerEvent(t, "tracker.updated", number, "delivered", at, nil, scan{"delivered", "Delivered", at.Add(-time.Minute)})

	if got := sendEvent(t, acme.api, acme.orgID, done, easyPostSecret); got.Data.Applied || got.Data.OrderID != "" {
		t.Errorf("globex's tracking number through acme's URL: %+v; want nothing found, nothing applied", got.Data)
	}
	wrong := postEvent(acme.api, acme.orgID, done, easyPostSignature(done, globexSecret))
	if wrong.Status != http.StatusUnauthorized {
		t.Errorf("globex's signature at acme's URL: %d %s; want 401", wrong.Status, wrong.Body)
	}
	if o := globex.order(t, id); o.Status != "shipped" {
		t.Fatalf("globex's order is %s after events at acme's URL; want shipped", o.Status)
	}
	initech, _ := testenv.Org(t, s, "initech", 0)
	for _, org := range []string{initech, "no-such-organization"} {
		res := postEvent(acme.api, org, done, easyPostSignature(done, easyPostSecret))
		if res.Status != wrong.Status || res.Map(t)["error"] != wrong.Map(t)["error"] {
			t.Errorf("an event for %s: %d %s; want exactly acme's wrong-signature answer %s", org, res.Status, res.Body, wrong.Body)
		}
	}
	if got := sendEvent(t, globex.api, globex.orgID, done, globexSecret); !got.Data.Applied || got.Data.OrderStatus != "delivered" {
		t.Errorf("the same event at globex's own URL: %+v; want it applied", got.Data)
	}
}

// TestEasyPostEventsRacingEndDelivered: EasyPost's events of one parcel
// arriving at once, in any order, some twice, end with the order and its
// recipient delivered and order.delivered sent once: each write is
// conditioned on the order's version (which holds the tracker's
// updated_at it was decided from), and the loser of a race decides again.
func TestEasyPostEventsRacingEndDelivered(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t).sealing(t, &logLines{})
	const number = "1Z999AA10000000077"
	rpath, id := trackedFixture(t, f, number)
	base := time.Now().UTC().Truncate(time.Second).Add(-4 * time.Hour)
	var bodies [][]byte
	for i, status := range []string{"pre_transit", "in_transit", "out_for_delivery", "delivered"} {
		at := base.Add(time.Duration(i) * time.Hour)
		var scans []scan
		for j := range i + 1 {
			scans = append(scans, scan{"in_transit", "Scan", base.Add(time.Duration(j)*time.Hour - time.Minute)})
		}
		scans[i].status = status
		body := trackerEvent(t, "tracker.updated", number, status, at, nil, scans...)
		bodies = append(bodies, body, body)
	}
	var wg sync.WaitGroup
	for _, body := range bodies {
		wg.Go(func() {
			if res := postEvent(f.api, f.orgID, body, easyPostSignature(body, easyPostSecret)); res.Status != http.StatusOK {
				t.Errorf("an event racing: %d %s; want 200", res.Status, res.Body)
			}
		})
	}
	wg.Wait()
	if o := f.order(t, id); o.Status != "delivered" || len(o.Shipments[0].Events) != 4 {
		t.Errorf("order after the race: %s with %d scans; want delivered with the last view's 4", o.Status, len(o.Shipments[0].Events))
	}
	if r := f.recipient(t, rpath); r.Status != gifting.RecipientDelivered {
		t.Errorf("recipient after the race: %s; want delivered", r.Status)
	}
	if n := countMessages(t, f.s, f.orgID, gifting.ChangeOrderDelivered); n != 1 {
		t.Errorf("%d order.delivered messages; want 1", n)
	}
}
