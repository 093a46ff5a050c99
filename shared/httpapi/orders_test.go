package httpapi_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// orderFixture is an organization with a live campaign of one gift
// (price 35: 35 credits held a recipient) and the recipients it claimed.
type orderFixture struct {
	s          *dynamo.Store
	api        *testenv.API
	orgID      string
	giftID     string
	campaignID string
}

func newOrderFixture(t *testing.T) *orderFixture {
	t.Helper()
	return orderFixtureOn(t, testenv.Store(t), "acme")
}

// orderFixtureOn is newOrderFixture for organization name on s.
func orderFixtureOn(t *testing.T, s *dynamo.Store, name string) *orderFixture {
	t.Helper()
	orgID, key := testenv.Org(t, s, name, 1000)
	f := &orderFixture{s: s, api: testenv.NewAPI(t, s, key), orgID: orgID}
	res := f.api.Do("POST", "/api/campaigns/gifts", newGift("Mug", 35))
	var g struct {
		Data gifting.Gift `json:"data"`
	}
	res.JSON(t, &g)
	f.giftID = g.Data.GiftID
	c := postCampaign(t, f.api, map[string]any{"name": "Thanks", "campaignData": map[string]any{
		"giftIds": []string{f.giftID}, "emailTemplateId": "tmpl-meeting-booker"}})
	f.campaignID = c.CampaignID
	testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
	return f
}

// claimed adds a recipient and claims the gift to addr, as its claim page
// does; it returns the recipient as claimed.
func (f *orderFixture) claimed(t *testing.T, email string, addr recipient.ShippingAddress) recipient.Recipient {
	t.Helper()
	var added wire.AddedRecipient
	res := f.api.Do("POST", addPath(f.campaignID), recipientBody(email, "Jane"))
	res.JSON(t, &added)
	if res.Status != http.StatusOK {
		t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
	}
	r, err := testenv.Recipients(f.s).Claim(context.Background(), f.orgID, f.campaignID, added.RecipientID,
		recipient.ClaimInput{GiftID: f.giftID, ShippingAddress: addr})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var mainStreet = recipient.ShippingAddress{Line1: "1 Main Street", City: "Springfield", State: "IL", Zip: "62701", Country: "US",
	PhoneNumber: "+1 555 0100"}

func orderIDOf(t *testing.T, r recipient.Recipient) string {
	t.Helper()
	id, _ := r.ShipmentInfo["orderId"].(string)
	if id == "" {
		t.Fatalf("the claimed recipient's shipmentInfo names no order: %v", r.ShipmentInfo)
	}
	return id
}

type orderEnvelope struct {
	Data wire.Order `json:"data"`
}

type ordersEnvelope struct {
	Data struct {
		Items      []wire.Order `json:"items"`
		NextCursor string       `json:"nextCursor"`
	} `json:"data"`
}

func (f *orderFixture) orders(t *testing.T, query string) ordersEnvelope {
	t.Helper()
	res := f.api.Do("GET", "/api/campaigns/orders"+query, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("GET orders%s: %d %s", query, res.Status, res.Body)
	}
	var env ordersEnvelope
	res.JSON(t, &env)
	return env
}

func (f *orderFixture) inventory(t *testing.T) fulfilment.Stock {
	t.Helper()
	st, err := f.s.Stock(context.Background(), f.orgID, f.giftID, "")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestClaimOpensAnOrderInTheQueueAndTheCSV: a confirmed address opens an
// order in the claim's own transaction: the recipient is processing with
// shipmentInfo naming it, one unit is reserved, and the order is in the
// open list, the campaign's list and the warehouse's CSV, where a cell a
// spreadsheet would run as a formula is neutralised.
func TestClaimOpensAnOrderInTheQueueAndTheCSV(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t)
	before := f.inventory(t)
	addr := mainStreet
	addr.Line2 = `=HYPERLINK("https://evil.test","click")`
	r := f.claimed(t, "jane@example.com", addr)
	if r.Status != gifting.RecipientProcessing {
		t.Errorf("claimed recipient is %s; want processing (its order is open)", r.Status)
	}
	id := orderIDOf(t, r)
	if inv := f.inventory(t); inv.Available != before.Available-1 || inv.Reserved != before.Reserved+1 {
		t.Errorf("inventory %+v after the claim; want one unit moved from available to reserved of %+v", inv, before)
	}
	for _, q := range []string{"?status=open", "?campaignId=" + f.campaignID, "?campaignId=" + f.campaignID + "&status=open", ""} {
		got := f.orders(t, q)
		if len(got.Data.Items) != 1 || got.Data.Items[0].OrderID != id || got.Data.Items[0].Status != "open" ||
			got.Data.Items[0].RecipientID != r.RecipientID || got.Data.Items[0].ShipTo.Line1 != "1 Main Street" {
			t.Errorf("GET orders%s: %+v; want the one open order %s", q, got.Data.Items, id)
		}
	}
	if got := f.orders(t, "?status=shipped"); len(got.Data.Items) != 0 {
		t.Errorf("shipped orders: %+v; want none", got.Data.Items)
	}
	res := f.api.Do("GET", "/api/campaigns/orders/export?status=open", nil)
	rows, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
	if res.Status != http.StatusOK || err != nil || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s %v %s", res.Status, res.Header.Get("Content-Type"), err, res.Body)
	}
	if len(rows) != 2 || rows[0][0] != "orderId" || rows[1][0] != id || rows[1][1] != "Jane Doe" {
		t.Fatalf("export rows %q; want the header and order %s for Jane Doe", rows, id)
	}
	if line2, phone := rows[1][3], rows[1][8]; line2 != "'"+addr.Line2 || phone != "'+1 555 0100" {
		t.Errorf("line2 %q, phone %q; want each prefixed with ' so no spreadsheet runs it", line2, phone)
	}
	if link := res.Header.Get("Link"); link != "" {
		t.Errorf("Link %q on the only page; want none", link)
	}
}

// TestOrderPagesFollowTheCursor: pages by cursor, by number and the CSV's
// Link header each list every order once.
func TestOrderPagesFollowTheCursor(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t)
	want := map[string]bool{}
	for _, e := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		want[orderIDOf(t, f.claimed(t, e, mainStreet))] = true
	}
	seen := map[string]int{}
	for q := "?status=open&limit=2"; ; {
		page := f.orders(t, q)
		for _, o := range page.Data.Items {
			seen[o.OrderID]++
		}
		if page.Data.NextCursor == "" {
			break
		}
		q = "?status=open&limit=2&cursor=" + page.Data.NextCursor
	}
	if second := f.orders(t, "?page=2&limit=2"); len(second.Data.Items) != 1 {
		t.Errorf("page 2 of 2: %d orders; want 1", len(second.Data.Items))
	}
	rows := 0
	link := regexp.MustCompile(`^<([^>]+)>; rel="next"$`)
	for path := "/api/campaigns/orders/export?limit=2"; path != ""; {
		res := f.api.Do("GET", path, nil)
		recs, _ := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
		rows += len(recs) - 1
		path = ""
		if m := link.FindStringSubmatch(res.Header.Get("Link")); m != nil {
			path = m[1]
		}
	}
	if len(seen) != 3 || rows != 3 {
		t.Errorf("cursor pages saw %v, CSV pages %d rows; want each of %v once", seen, rows, want)
	}
}

// TestShipmentMovesTheRecipientToShipped: a shipment makes the order and
// its recipient shipped with the tracking link, in one transaction; the
// same shipment again changes nothing; another organization sees nothing;
// bad input is a 400 naming the fields; the status endpoint refuses to
// ship a recipient whose order has not shipped (409 naming the orders
// endpoint).
func TestShipmentMovesTheRecipientToShipped(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t)
	r := f.claimed(t, "jane@example.com", mainStreet)
	id := orderIDOf(t, r)
	statusPath := "/api/campaigns/campaigns/" + f.campaignID + "/recipients/" + r.RecipientID
	res := f.api.Do("POST", statusPath+"/status", map[string]any{"status": "delivered"})
	if res.Status != http.StatusConflict || !strings.Contains(string(res.Body), "/api/campaigns/orders/"+id+"/shipments") {
		t.Errorf("status move to delivered before the shipment: %d %s; want 409 naming the orders endpoint", res.Status, res.Body)
	}
	res = f.api.Do("POST", "/api/campaigns/orders/"+id+"/shipments", map[string]any{})
	if m := res.Map(t); res.Status != http.StatusBadRequest || m["code"] != "VALIDATION_FAILED" ||
		m["details"].(map[string]any)["carrier"] == nil || m["details"].(map[string]any)["trackingNumber"] == nil {
		t.Errorf("empty shipment: %d %s; want 400 naming carrier and trackingNumber", res.Status, res.Body)
	}
	_, otherKey := testenv.Org(t, f.s, "globex", 0)
	if res := f.api.WithKey(otherKey).Do("GET", "/api/campaigns/orders/"+id, nil); res.Status != http.StatusNotFound {
		t.Errorf("another organization's GET: %d; want 404", res.Status)
	}
	ship := map[string]any{"carrier": "UPS", "trackingNumber": "1Z999AA10123456784", "trackingUrl": "https://ups.test/1Z999AA10123456784"}
	if res := f.api.WithKey(otherKey).Do("POST", "/api/campaigns/orders/"+id+"/shipments", ship); res.Status != http.StatusNotFound {
		t.Errorf("another organization's shipment: %d; want 404", res.Status)
	}
	before := f.inventory(t)
	res = f.api.Do("POST", "/api/campaigns/orders/"+id+"/shipments", ship)
	var o orderEnvelope
	res.JSON(t, &o)
	if res.Status != http.StatusOK || o.Data.Status != "shipped" || len(o.Data.Shipments) != 1 || o.Data.ShippedAt == nil {
		t.Fatalf("shipment: %d %s; want the order shipped", res.Status, res.Body)
	}
	var rc struct {
		Data wire.Recipient `json:"data"`
	}
	f.api.Do("GET", statusPath, nil).JSON(t, &rc)
	if rc.Data.Status != gifting.RecipientShipped || rc.Data.SelectedGift.TrackingLink != ship["trackingUrl"] ||
		rc.Data.ShipmentInfo["carrier"] != "UPS" || rc.Data.ShipmentInfo["orderStatus"] != "shipped" {
		t.Errorf("recipient after the shipment: %s, trackingLink %q, shipmentInfo %v; want shipped with the link",
			rc.Data.Status, rc.Data.SelectedGift.TrackingLink, rc.Data.ShipmentInfo)
	}
	if inv := f.inventory(t); inv.Reserved != before.Reserved-1 || inv.Total != before.Total-1 || inv.Available != before.Available {
		t.Errorf("inventory %+v after the shipment; want the reserved unit gone from %+v", inv, before)
	}
	again := f.api.Do("POST", "/api/campaigns/orders/"+id+"/shipments", ship)
	if again.Status != http.StatusOK || again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the same shipment again: %d %v; want 200 replayed", again.Status, again.Header)
	}
	if inv := f.inventory(t); inv.Total != before.Total-1 {
		t.Errorf("inventory %+v after a replay; want no second unit consumed", inv)
	}
	other := map[string]any{"carrier": "FedEx", "trackingNumber": "999"}
	if res := f.api.Do("POST", "/api/campaigns/orders/"+id+"/shipments", other); res.Status != http.StatusConflict {
		t.Errorf("a different shipment: %d %s; want 409", res.Status, res.Body)
	}
	if res := f.api.Do("POST", statusPath+"/status", map[string]any{"status": "delivered"}); res.Status != http.StatusOK {
		t.Errorf("status move to delivered after the shipment: %d %s; want 200", res.Status, res.Body)
	}
	if res := f.api.Do("POST", "/api/campaigns/orders/"+id+"/cancel", map[string]any{"reason": "late"}); res.Status != http.StatusConflict {
		t.Errorf("cancel of a shipped order: %d %s; want 409", res.Status, res.Body)
	}
	if n := countMessages(t, f.s, f.orgID, gifting.ChangeOrderShipped); n != 1 {
		t.Errorf("%d order.shipped messages; want 1", n)
	}
}

// countMessages counts orgID's change messages of type typ.
func countMessages(t *testing.T, s *dynamo.Store, orgID, typ string) int {
	t.Helper()
	n := 0
	for _, rec := range testenv.ChangeRecords(t, s, orgID) {
		for _, m := range rec.Messages {
			if m.Type == typ {
				n++
			}
		}
	}
	return n
}

// TestShipmentImportAppliesEachRowOnce: a CSV of shipments records each
// good row and reports the bad ones (207); the same file sent again
// records nothing more (its rows unchanged), so each order ships once.
func TestShipmentImportAppliesEachRowOnce(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t)
	a := orderIDOf(t, f.claimed(t, "a@example.com", mainStreet))
	b := orderIDOf(t, f.claimed(t, "b@example.com", mainStreet))
	file := "orderId,carrier,trackingNumber,trackingUrl\n" +
		a + ",UPS,1Z0001,https://ups.test/1Z0001\n" +
		b + ",FedEx,7700 0002,\n" +
		"01NOSUCHORDER0000000000000,UPS,1Z0003,\n" +
		a + ",,,\n"
	for round, want := range []struct{ shipped, unchanged int }{{2, 0}, {0, 2}} {
		res := f.api.Do("POST", "/api/campaigns/orders/shipments/import", file, "Content-Type", "text/csv")
		var env struct {
			Data struct {
				Shipped, Unchanged, Failed int
				Results                    []struct {
					Line    int               `json:"line"`
					Status  string            `json:"status"`
					Details map[string]string `json:"details"`
				} `json:"results"`
			} `json:"data"`
		}
		res.JSON(t, &env)
		d := env.Data
		if res.Status != http.StatusMultiStatus || d.Shipped != want.shipped || d.Unchanged != want.unchanged || d.Failed != 2 {
			t.Fatalf("import round %d: %d %s; want 207 with %d shipped, %d unchanged, 2 failed", round+1, res.Status, res.Body,
				want.shipped, want.unchanged)
		}
		if last := d.Results[len(d.Results)-1]; last.Line != 5 || last.Status != "failed" || last.Details["carrier"] == "" {
			t.Errorf("row 5 (no carrier): %+v; want failed naming carrier", last)
		}
	}
	if got := f.orders(t, "?status=shipped"); len(got.Data.Items) != 2 {
		t.Errorf("%d shipped orders; want 2", len(got.Data.Items))
	}
	if n := countMessages(t, f.s, f.orgID, gifting.ChangeOrderShipped); n != 2 {
		t.Errorf("%d order.shipped messages after the file was sent twice; want 2", n)
	}
	if res := f.api.Do("POST", "/api/campaigns/orders/shipments/import", map[string]any{"rows": 1}); res.Status != http.StatusUnsupportedMediaType {
		t.Errorf("a JSON body: %d; want 415", res.Status)
	}
}

// TestCancelRefundsTheCreditsAndReleasesTheUnit: cancelling an order
// before it ships gives the recipient's credits back with a refund entry
// (the ledger sums to the balance), releases its unit, and shows the
// cancellation on the recipient; a cancelled order cannot ship, and the
// status endpoint cannot ship its recipient.
func TestCancelRefundsTheCreditsAndReleasesTheUnit(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t)
	r := f.claimed(t, "jane@example.com", mainStreet)
	id := orderIDOf(t, r)
	if b := walletBalance(t, f.s, f.orgID); b != 1000-35 {
		t.Fatalf("balance %d after the claim; want 965", b)
	}
	before := f.inventory(t)
	path := "/api/campaigns/orders/" + id + "/cancel"
	if res := f.api.Do("POST", path, map[string]any{"reason": "  "}); res.Status != http.StatusBadRequest ||
		res.Map(t)["details"].(map[string]any)["reason"] == nil {
		t.Errorf("blank reason: %d %s; want 400 naming reason", res.Status, res.Body)
	}
	_, otherKey := testenv.Org(t, f.s, "globex", 0)
	if res := f.api.WithKey(otherKey).Do("POST", path, map[string]any{"reason": "mine"}); res.Status != http.StatusNotFound {
		t.Errorf("another organization's cancel: %d; want 404", res.Status)
	}
	res := f.api.Do("POST", path, map[string]any{"reason": "the recipient left the company"})
	var o orderEnvelope
	res.JSON(t, &o)
	if res.Status != http.StatusOK || o.Data.Status != "cancelled" || o.Data.CancelReason != "the recipient left the company" {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	if b := walletBalance(t, f.s, f.orgID); b != 1000 {
		t.Errorf("balance %d after the cancel; want 1000 (the 35 credits back)", b)
	}
	testenv.AssertLedgerBalanced(t, f.s, f.orgID)
	if c := fetchCampaign(t, f.api, f.campaignID); c.LiveData.CreditsSpent != 0 {
		t.Errorf("campaign creditsSpent %d after the cancel; want 0", c.LiveData.CreditsSpent)
	}
	if sum, byType := ledgerSum(t, f.s, f.orgID); sum != 1000 || byType["refund"] != 1 {
		t.Errorf("ledger sums to %d with %v; want 1000 with one refund", sum, byType)
	}
	if inv := f.inventory(t); inv.Available != before.Available+1 || inv.Reserved != before.Reserved-1 {
		t.Errorf("inventory %+v after the cancel; want the unit back to available from %+v", inv, before)
	}
	var rc struct {
		Data wire.Recipient `json:"data"`
	}
	rpath := "/api/campaigns/campaigns/" + f.campaignID + "/recipients/" + r.RecipientID
	f.api.Do("GET", rpath, nil).JSON(t, &rc)
	if rc.Data.ShipmentInfo["orderStatus"] != "cancelled" || rc.Data.CreditsCharged != 0 {
		t.Errorf("recipient after the cancel: shipmentInfo %v, creditsCharged %d; want cancelled, 0", rc.Data.ShipmentInfo, rc.Data.CreditsCharged)
	}
	again := f.api.Do("POST", path, map[string]any{"reason": "again"})
	if again.Status != http.StatusOK || again.Header.Get("Idempotent-Replayed") != "true" || walletBalance(t, f.s, f.orgID) != 1000 {
		t.Errorf("second cancel: %d %v; want 200 replayed, nothing refunded twice", again.Status, again.Header)
	}
	ship := map[string]any{"carrier": "UPS", "trackingNumber": "1Z0009"}
	if res := f.api.Do("POST", "/api/campaigns/orders/"+id+"/shipments", ship); res.Status != http.StatusConflict {
		t.Errorf("shipping a cancelled order: %d %s; want 409", res.Status, res.Body)
	}
	if res := f.api.Do("POST", rpath+"/status", map[string]any{"status": "shipped"}); res.Status != http.StatusConflict {
		t.Errorf("status move to shipped of a cancelled order's recipient: %d %s; want 409", res.Status, res.Body)
	}
	if got := f.orders(t, "?status=cancelled"); len(got.Data.Items) != 1 {
		t.Errorf("%d cancelled orders; want 1", len(got.Data.Items))
	}
	if got := f.orders(t, "?status=open"); len(got.Data.Items) != 0 {
		t.Errorf("%d open orders after the cancel; want 0", len(got.Data.Items))
	}
}

// TestOrdersRefuseBadInput: list parameters out of range are a 400 in the
// documented error shape, naming each.
func TestOrdersRefuseBadInput(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t)
	for q, field := range map[string]string{"?status=lost": "status", "?limit=0": "limit", "?cursor=a%23b": "cursor",
		"?campaignId=x%23y": "campaignId"} {
		res := f.api.Do("GET", "/api/campaigns/orders"+q, nil)
		m := res.Map(t)
		if d, _ := m["details"].(map[string]any); res.Status != http.StatusBadRequest || m["code"] != "VALIDATION_FAILED" || d[field] == nil {
			t.Errorf("GET orders%s: %d %s; want 400 naming %s", q, res.Status, res.Body, field)
		}
	}
	if res := f.api.Do("GET", "/api/campaigns/orders/no-such-order", nil); res.Status != http.StatusNotFound {
		t.Errorf("an unknown order: %d; want 404", res.Status)
	}
}
