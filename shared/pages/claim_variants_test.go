package pages_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// variantFixture is the pages fixture whose campaign offers a hoodie in
// three sizes (S: 1 unit, M: none left, L: 2 units; low stock at 1) and
// the coffee, which has no variants.
type variantFixture struct {
	*fixture
	hoodie               catalog.Gift
	small, medium, large string // the sizes' variant ids
}

func newVariantFixture(t *testing.T) *variantFixture {
	t.Helper()
	ctx := context.Background()
	f := &variantFixture{fixture: newFixture(t, nil)}
	one := 1
	g, err := catalog.NewApp(f.fixture.s).CreateGift(ctx, f.orgID, catalog.Gift{Name: "Hoodie", Price: 30, Currency: "USD",
		Status: catalog.GiftAvailable, LowStockThreshold: &one, Variants: []catalog.Variant{
			{Name: "Small", Inventory: catalog.Inventory{Total: 1, Available: 1}},
			{Name: "Medium", Inventory: catalog.Inventory{Total: 3, Available: 0, Reserved: 3}},
			{Name: "Large", Inventory: catalog.Inventory{Total: 2, Available: 2}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	f.hoodie, f.small, f.medium, f.large = g, g.Variants[0].VariantID, g.Variants[1].VariantID, g.Variants[2].VariantID
	c, err := testenv.CreateCampaign(ctx, f.fixture.s, f.orgID, campaign.Campaign{Name: "Team hoodies", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{g.GiftID, f.cheap.GiftID}, CreditsPerRecipient: f.creditsPerPerson, PriceSet: true}})
	if err != nil {
		t.Fatal(err)
	}
	f.campaign = c.CampaignID
	return f
}

// stock reads the hoodie's counts of variant v ("" for the gift's own).
func (f *variantFixture) stock(t *testing.T, v string) fulfilment.Stock {
	t.Helper()
	st, err := f.fixture.s.Stock(context.Background(), f.orgID, f.hoodie.GiftID, v)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func withVariant(giftID, variantID string) url.Values {
	form := address(giftID)
	if variantID != "" {
		form.Set("variantId", variantID)
	}
	return form
}

// TestClaimAsksForTheVariant: the claim form offers each size of the
// hoodie as a radio button, the sold-out one unavailable; a claim without
// a size, with a size of nothing, or with a size for the coffee (which has
// none) is a 400 beside the sizes, and the sold-out size a 409, nothing
// written; a claim of a size reserves one unit of it and of the gift's
// sum, opens the order with the size (in the warehouse's CSV too), and,
// the size falling to the threshold, sends gift.low_stock.
func TestClaimAsksForTheVariant(t *testing.T) {
	t.Parallel()
	f := newVariantFixture(t)
	r := f.add(t, "jane@example.com")
	form := f.do(t, "GET", "/claim/"+r.ClaimPageID, nil)
	if form.status != http.StatusOK || strings.Count(form.body, `name="variantId"`) != 3 ||
		!strings.Contains(form.body, "<legend>Choose an option of Hoodie</legend>") {
		t.Fatalf("claim form: %d, want the three sizes as radio buttons in a fieldset:\n%s", form.status, form.body)
	}
	soldOut := regexp.MustCompile(`value="` + f.medium + `"[^>]* disabled>\s*<span><span class="name">Medium</span><span class="desc">Out of stock</span>`)
	if !soldOut.MatchString(form.body) || strings.Count(form.body, " disabled>") != 1 {
		t.Errorf("the sold-out size is not the one shown unavailable:\n%s", form.body)
	}
	before := f.stock(t, "")
	for _, c := range []struct {
		name, gift, variant string
		status              int
		says                string
	}{
		{"no size", f.hoodie.GiftID, "", http.StatusBadRequest, "choose an option of Hoodie"},
		{"a size of nothing", f.hoodie.GiftID, "01ZZZZZZZZZZZZZZZZZZZZZZZZ", http.StatusBadRequest, "choose one of the options shown for Hoodie"},
		{"a size for the coffee", f.cheap.GiftID, f.large, http.StatusBadRequest, "The gift you chose has no options"},
		{"the sold-out size", f.hoodie.GiftID, f.medium, http.StatusConflict, "The variant you chose is out of stock"},
	} {
		res := f.do(t, "POST", "/claim/"+r.ClaimPageID, withVariant(c.gift, c.variant))
		if res.status != c.status || !strings.Contains(res.body, c.says) || !strings.Contains(res.body, `value="Springfield"`) {
			t.Errorf("%s: %d, want %d saying %q with the form again:\n%s", c.name, res.status, c.status, c.says, res.body)
		}
		if c.status == http.StatusBadRequest && c.gift == f.hoodie.GiftID && !strings.Contains(res.body, `id="variantId-error"`) {
			t.Errorf("%s: the problem is not beside the sizes", c.name)
		}
	}
	if got, now := f.recipient(t, r.RecipientID), f.stock(t, ""); got.Claimed() || now.Available != before.Available || now.Reserved != before.Reserved {
		t.Fatalf("refused claims wrote: claimed %v, stock %+v (was %+v)", got.Claimed(), f.stock(t, ""), before)
	}
	res := f.do(t, "POST", "/claim/"+r.ClaimPageID, withVariant(f.hoodie.GiftID, f.large))
	if res.status != http.StatusSeeOther {
		t.Fatalf("claim of Large: %d %s", res.status, res.body)
	}
	if l, sum := f.stock(t, f.large), f.stock(t, ""); l.Available != 1 || l.Reserved != 1 || l.Total != 2 ||
		sum.Available != before.Available-1 || sum.Reserved != before.Reserved+1 || sum.Total != before.Total {
		t.Errorf("after the claim: Large %+v, gift %+v (was %+v); want one unit of each moved to reserved", l, sum, before)
	}
	api := testenv.NewAPI(t, f.fixture.s, f.apiKey)
	orders := api.Do("GET", "/api/campaigns/orders?campaignId="+f.campaign, nil)
	if m := orders.Map(t); !strings.Contains(string(orders.Body), `"variantId":"`+f.large+`"`) ||
		!strings.Contains(string(orders.Body), `"variantName":"Large"`) {
		t.Errorf("the order does not carry the size: %v", m)
	}
	export := api.Do("GET", "/api/campaigns/orders/export?status=open", nil)
	rows, err := csv.NewReader(strings.NewReader(string(export.Body))).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("export: %v %q", err, export.Body)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if rows[1][col["variantId"]] != f.large || rows[1][col["variantName"]] != "Large" {
		t.Errorf("the CSV row %q has no size", rows[1])
	}
	// The recipient sees the size they chose on their page; the sender, in
	// the recipients export.
	if landing := f.do(t, "GET", "/gift/"+r.LandingPageID, nil); !strings.Contains(landing.body, "Your choice: Large") {
		t.Errorf("the landing page does not show the size chosen:\n%s", landing.body)
	}
	recips := api.Do("GET", "/api/campaigns/campaigns/"+f.campaign+"/recipients/export", nil)
	rrows, err := csv.NewReader(strings.NewReader(string(recips.Body))).ReadAll()
	if err != nil || len(rrows) < 2 {
		t.Fatalf("recipients export: %d %v %q", recips.Status, err, recips.Body)
	}
	rcol := map[string]int{}
	for i, h := range rrows[0] {
		rcol[h] = i
	}
	if rrows[1][rcol["giftOption"]] != "Large" {
		t.Errorf("the recipients export row %q does not carry the size", rrows[1])
	}
	lows := lowStock(t, f)
	if len(lows) != 1 || lows[0].VariantID != f.large || lows[0].Available != 1 || lows[0].Threshold != 1 {
		t.Errorf("gift.low_stock messages %+v; want one for Large at 1", lows)
	}
}

// lowStock reads f's gift.low_stock messages from the change feed.
func lowStock(t *testing.T, f *variantFixture) []fulfilment.LowStock {
	t.Helper()
	var out []fulfilment.LowStock
	for _, rec := range testenv.ChangeRecords(t, f.fixture.s, f.orgID) {
		for _, m := range rec.Messages {
			if m.Type == gifting.ChangeGiftLowStock {
				d, ok := m.Data.(fulfilment.LowStock)
				if !ok {
					t.Fatalf("gift.low_stock data %T", m.Data)
				}
				out = append(out, d)
			}
		}
	}
	return out
}

// TestLastUnitOfAVariantClaimedTwiceOpensOneOrder: two recipients claim
// the last Small at once; exactly one order opens, the other is the 409
// naming the size, and the unit is reserved once. Shipping the order then
// takes the unit off the shelf, and cancelling an order of Large puts its
// unit back, each in its variant's counts and the gift's sum.
func TestLastUnitOfAVariantClaimedTwiceOpensOneOrder(t *testing.T) {
	t.Parallel()
	f := newVariantFixture(t)
	a, b := f.add(t, "ann@example.com"), f.add(t, "bob@example.com")
	statuses := make([]int, 2)
	var wg sync.WaitGroup
	for i, page := range []string{a.ClaimPageID, b.ClaimPageID} {
		wg.Go(func() {
			res := f.do(t, "POST", "/claim/"+page, withVariant(f.hoodie.GiftID, f.small))
			statuses[i] = res.status
			if res.status == http.StatusConflict && !strings.Contains(res.body, "The variant you chose is out of stock") {
				t.Errorf("the losing claim: %s", res.body)
			}
		})
	}
	wg.Wait()
	won, lost := 0, 0
	for _, st := range statuses {
		switch st {
		case http.StatusSeeOther:
			won++
		case http.StatusConflict:
			lost++
		}
	}
	small := f.stock(t, f.small)
	if won != 1 || lost != 1 || small.Available != 0 || small.Reserved != 1 {
		t.Fatalf("statuses %v, Small %+v; want one 303, one 409 and the unit reserved once", statuses, small)
	}
	api := testenv.NewAPI(t, f.fixture.s, f.apiKey)
	var list struct {
		Data struct {
			Items []struct {
				OrderID, VariantID string
			} `json:"items"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/orders?campaignId="+f.campaign, nil).JSON(t, &list)
	if len(list.Data.Items) != 1 || list.Data.Items[0].VariantID != f.small {
		t.Fatalf("orders %+v; want the one order of Small", list.Data.Items)
	}
	if form := f.do(t, "GET", "/claim/"+b.ClaimPageID, nil); statuses[0] == http.StatusSeeOther &&
		!regexp.MustCompile(`value="`+f.small+`"[^>]* disabled>`).MatchString(form.body) {
		t.Errorf("the loser's form does not show Small unavailable")
	}
	sum := f.stock(t, "")
	ship := map[string]any{"carrier": "UPS", "trackingNumber": "1Z999AA10123456784"}
	if res := api.Do("POST", "/api/campaigns/orders/"+list.Data.Items[0].OrderID+"/shipments", ship); res.Status != http.StatusOK {
		t.Fatalf("ship: %d %s", res.Status, res.Body)
	}
	if small, after := f.stock(t, f.small), f.stock(t, ""); small.Total != 0 || small.Reserved != 0 ||
		after.Total != sum.Total-1 || after.Reserved != sum.Reserved-1 || after.Available != sum.Available {
		t.Errorf("after the shipment: Small %+v, gift %+v (was %+v); want the unit gone from both", small, after, sum)
	}
	c := f.add(t, "cy@example.com")
	if res := f.do(t, "POST", "/claim/"+c.ClaimPageID, withVariant(f.hoodie.GiftID, f.large)); res.status != http.StatusSeeOther {
		t.Fatalf("claim of Large: %d", res.status)
	}
	cr := f.recipient(t, c.RecipientID)
	orderID, _ := cr.ShipmentInfo["orderId"].(string)
	if res := api.Do("POST", "/api/campaigns/orders/"+orderID+"/cancel", map[string]any{"reason": "wrong size"}); res.Status != http.StatusOK {
		t.Fatalf("cancel: %d %s", res.Status, res.Body)
	}
	if l := f.stock(t, f.large); l.Available != 2 || l.Reserved != 0 || l.Total != 2 {
		t.Errorf("Large after the cancel: %+v; want its unit back to available", l)
	}
	testenv.AssertLedgerBalanced(t, f.fixture.s, f.orgID)
}
