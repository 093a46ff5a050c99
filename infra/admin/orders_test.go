package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// catalogGift is a gift of the service catalog (isDelightloop): its orders
// are the operator's.
const catalogGift = "gift-artisan-coffee"

// opsTenant is an organization with a live campaign of one gift.
type opsTenant struct {
	orgID, campaignID string
	api               *testenv.API
}

// newOpsTenant creates orgID with a live campaign of giftID ("" for a
// gift of its own, whose orders it ships itself).
func newOpsTenant(t *testing.T, s *dynamo.Store, orgID, giftID string) opsTenant {
	t.Helper()
	id, key := testenv.Org(t, s, orgID, 1000)
	ten := opsTenant{orgID: id, api: testenv.NewAPI(t, s, key)}
	if giftID == "" {
		res := ten.api.Do("POST", "/api/campaigns/gifts", map[string]any{"name": "Mug", "price": 20, "currency": "USD",
			"status": "available", "inventory": map[string]any{"total": 10, "available": 10, "reserved": 0}})
		var g struct {
			Data gifting.Gift `json:"data"`
		}
		res.JSON(t, &g)
		giftID = g.Data.GiftID
	}
	res := ten.api.Do("POST", "/api/campaigns", map[string]any{"name": "Thanks", "campaignData": map[string]any{
		"giftIds": []string{giftID}, "emailTemplateId": "tmpl-meeting-booker"}})
	var c struct {
		Data campaign.Campaign `json:"data"`
	}
	res.JSON(t, &c)
	if res.Status != http.StatusCreated {
		t.Fatalf("create campaign: %d %s", res.Status, res.Body)
	}
	ten.campaignID = c.Data.CampaignID
	testenv.SetCampaignStatus(t, s, id, ten.campaignID, campaign.Live)
	return ten
}

// claim adds a recipient and claims the campaign's gift, as its claim
// page does; it returns the order's id.
func (ten opsTenant) claim(t *testing.T, s *dynamo.Store, email string) string {
	t.Helper()
	res := ten.api.Do("POST", "/api/campaigns/campaigns/"+ten.campaignID+"/add-recipient",
		map[string]any{"contactDetails": map[string]any{"email": email, "firstName": "Jane", "lastName": "Doe"}})
	var added struct {
		RecipientID string `json:"recipientId"`
	}
	res.JSON(t, &added)
	if res.Status != http.StatusOK || added.RecipientID == "" {
		t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
	}
	r := testenv.Claim(t, s, ten.orgID, ten.campaignID, added.RecipientID)
	id, _ := r.ShipmentInfo["orderId"].(string)
	if id == "" {
		t.Fatalf("the claim opened no order: %v", r.ShipmentInfo)
	}
	return id
}

// exportQueue runs `admin orders export -out FILE` and returns the CSV's
// rows, the header first.
func exportQueue(t *testing.T) [][]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "orders.csv")
	out := admin(t, 0, "orders", "export", "-out", path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if out["orders"] != float64(len(rows)-1) {
		t.Errorf("export printed %v for a file of %d orders", out, len(rows)-1)
	}
	return rows
}

// queuedIDs are the order ids of an export's rows, in the file's order,
// each checked against its organization.
func queuedIDs(t *testing.T, rows [][]string, orgOf map[string]string) []string {
	t.Helper()
	want := append(append([]string{}, fulfilment.ExportColumns...), "organizationId")
	if !slices.Equal(rows[0], want) {
		t.Fatalf("header %v, want %v", rows[0], want)
	}
	var ids []string
	for _, row := range rows[1:] {
		if org := row[len(row)-1]; org != orgOf[row[0]] {
			t.Errorf("order %s is listed for %q, want %q", row[0], org, orgOf[row[0]])
		}
		ids = append(ids, row[0])
	}
	return ids
}

// importFile runs `admin orders import-shipments` on lines and returns its
// report.
func importFile(t *testing.T, want int, lines ...string) map[string]any {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shipments.csv")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if got := run(context.Background(), []string{"orders", "import-shipments", path}, &stdout, &stderr); got != want {
		t.Fatalf("import-shipments: exit %d, want %d; stderr %s", got, want, stderr.String())
	}
	var rep map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("import-shipments printed no JSON: %v\n%s", err, stdout.String())
	}
	return rep
}

// rowStatuses are the outcomes of an import's rows by order id, with the
// organization it named.
func rowStatuses(rep map[string]any) map[string]string {
	out := map[string]string{}
	results, _ := rep["results"].([]any)
	for _, r := range results {
		m, _ := r.(map[string]any)
		id, _ := m["orderId"].(string)
		st, _ := m["status"].(string)
		org, _ := m["organizationId"].(string)
		out[id] = st + "@" + org
	}
	return out
}

// TestOperatorExportsAndShipsServiceOrders: the operator's queue lists the
// open orders of the service catalog's gifts of every organization, oldest
// first, page after page, and none of an organization's own gifts; a
// cancelled or shipped order leaves it. A shipment file is applied row by
// row with each row's outcome, and sent again changes nothing: every row
// shipped before is unchanged.
func TestOperatorExportsAndShipsServiceOrders(t *testing.T) {
	table := testenv.Table(t)
	t.Setenv("TABLE_NAME", table)
	s := dynamo.New(testenv.Client(t), table)
	admin(t, 0, "seed-catalog")
	acme, globex := newOpsTenant(t, s, "acme", catalogGift), newOpsTenant(t, s, "globex", catalogGift)
	own := newOpsTenant(t, s, "initech", "")
	orgOf := map[string]string{}
	var opened []string
	for i, ten := range []opsTenant{acme, globex, acme, globex, acme} {
		id := ten.claim(t, s, "r"+string(rune('a'+i))+"@example.com")
		orgOf[id] = ten.orgID
		opened = append(opened, id)
	}
	ownOrder := own.claim(t, s, "own@example.com")

	// Two orders a page: the four shards are merged across three pages.
	defer func(n int) { exportPageSize = n }(exportPageSize)
	exportPageSize = 2
	if got := queuedIDs(t, exportQueue(t), orgOf); !slices.Equal(got, opened) {
		t.Fatalf("the queue lists %v; want the service orders oldest first %v (not %s, the organization's own)", got, opened, ownOrder)
	}

	if _, _, err := testenv.Recipients(s).CancelOrder(context.Background(), acme.orgID, opened[4], "left the company"); err != nil {
		t.Fatal(err)
	}
	file := []string{
		"orderId,carrier,trackingNumber,trackingUrl",
		opened[0] + ",UPS,1Z999AA10123456784,https://www.ups.com/track?tracknum=1Z999AA10123456784",
		opened[1] + ",USPS,9400100000000000000001,",
		ownOrder + ",UPS,1Z0000000000000001,",
		"01JH8Z4Q1V6W3K2M9T5R7Y0XXX,UPS,1Z0000000000000002,",
	}
	first := importFile(t, 1, file...)
	if first["shipped"] != float64(2) || first["failed"] != float64(2) || first["unchanged"] != float64(0) {
		t.Fatalf("import printed %v; want 2 shipped, 2 failed", first)
	}
	want := map[string]string{opened[0]: "shipped@acme", opened[1]: "shipped@globex", ownOrder: "failed@",
		"01JH8Z4Q1V6W3K2M9T5R7Y0XXX": "failed@"}
	if got := rowStatuses(first); !maps.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	again := importFile(t, 1, file...)
	want[opened[0]], want[opened[1]] = "unchanged@acme", "unchanged@globex"
	if got := rowStatuses(again); again["shipped"] != float64(0) || again["unchanged"] != float64(2) || !maps.Equal(got, want) {
		t.Errorf("sent again: %v; want every shipped row unchanged", again)
	}
	importFile(t, 0, file[:3]...) // only rows that were recorded: exit 0

	r, err := testenv.Recipients(s).Order(context.Background(), acme.orgID, opened[0])
	if err != nil || r.Status != fulfilment.StatusShipped || len(r.Shipments) != 1 || r.Shipments[0].TrackingNumber != "1Z999AA10123456784" {
		t.Errorf("acme's order after the import: %+v, %v; want shipped once with its tracking number", r, err)
	}
	if got := queuedIDs(t, exportQueue(t), orgOf); !slices.Equal(got, opened[2:4]) {
		t.Errorf("the queue after two shipments and a cancel lists %v; want %v", got, opened[2:4])
	}
	if o, _ := testenv.Recipients(s).Order(context.Background(), own.orgID, ownOrder); o.Status != fulfilment.StatusOpen {
		t.Errorf("the organization's own order is %s; the operator's file must not ship it", o.Status)
	}

	admin(t, 2, "orders", "import-shipments")
	admin(t, 2, "orders", "export", "extra")
	admin(t, 2, "orders", "ship")
}

// TestServiceOrdersMigration: service orders written before the operator's
// keys are not in the queue until `admin migrate -steps service-orders`
// keys them; a second run changes nothing.
func TestServiceOrdersMigration(t *testing.T) {
	table := testenv.Table(t)
	t.Setenv("TABLE_NAME", table)
	s := dynamo.New(testenv.Client(t), table)
	admin(t, 0, "seed-catalog")
	acme := newOpsTenant(t, s, "acme", catalogGift)
	open, shipped := acme.claim(t, s, "a@example.com"), acme.claim(t, s, "b@example.com")
	importFile(t, 0, shipped+",UPS,1Z999AA10123456784,")
	for _, id := range []string{open, shipped} { // as the code before wrote them
		_, err := testenv.Client(t).UpdateItem(context.Background(), &dynamodb.UpdateItemInput{TableName: aws.String(table),
			Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#acme"},
				"SK": &types.AttributeValueMemberS{Value: "ORDER#" + id}},
			UpdateExpression: aws.String("REMOVE pg, dueShard, dueAt")})
		if err != nil {
			t.Fatal(err)
		}
	}
	if rows := exportQueue(t); len(rows) != 1 {
		t.Fatalf("unkeyed orders listed: %v", rows)
	}
	if rep := importFile(t, 1, shipped+",UPS,1Z999AA10123456784,"); rep["failed"] != float64(1) {
		t.Fatalf("an unkeyed order was found: %v", rep)
	}

	first := admin(t, 0, "migrate", "-steps", "service-orders")
	if res, _ := first["results"].([]any); len(res) != 1 || field(res[0].(map[string]any), "changed") != float64(2) {
		t.Fatalf("migrate printed %v; want both orders keyed", first)
	}
	if ids := queuedIDs(t, exportQueue(t), map[string]string{open: "acme"}); !slices.Equal(ids, []string{open}) {
		t.Errorf("after the migration the queue lists %v; want the open order %s", ids, open)
	}
	if rep := importFile(t, 0, shipped+",UPS,1Z999AA10123456784,"); rep["unchanged"] != float64(1) {
		t.Errorf("after the migration the shipped order's row: %v; want unchanged", rep)
	}
	second := admin(t, 0, "migrate", "-steps", "service-orders")
	if res, _ := second["results"].([]any); len(res) != 1 || field(res[0].(map[string]any), "changed") != float64(0) {
		t.Errorf("a second run printed %v; want nothing changed", second)
	}
}
