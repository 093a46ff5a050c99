package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/recipient"
)

// The fulfilment rows (issue 31; docs/fulfilment.md, decision 0012): what
// a claim, a shipment and a cancel cost, for an order the operator ships
// (a service-catalog gift: the order carries the operator's queue and
// lookup keys) and one the organization ships, and what a page of each
// export reads. On a table of its own, so the operator's queue holds just
// this scenario's orders.

const (
	// ordersOrgs and ordersPerOrg: the open service orders of the queue.
	ordersOrgs   = 4
	ordersPerOrg = 60
	// ordersCatalogGift is a service-catalog gift (its orders are the
	// operator's), ordersPrice what a campaign of it holds a recipient.
	ordersCatalogGift = "gift-artisan-coffee"
	ordersPrice       = 40
)

// opCost is the measured cost of one use case call.
type opCost struct{ requests, rru, wruReported, wruBilled []float64 }

func (c *opCost) add(e *env, ctx context.Context, u *meter.Usage) {
	n := u.Counts()
	c.requests = append(c.requests, float64(n.Requests))
	c.rru = append(c.rru, n.ReadUnits)
	c.wruReported = append(c.wruReported, n.WriteUnits)
	c.wruBilled = append(c.wruBilled, e.bill.writeUnits(ctx, u.Calls()))
}

func (c opCost) String() string {
	return fmt.Sprintf("%s requests, %s RRU, %s WRU reported, %s WRU billed (est.)",
		num(medianFloat(c.requests)), num(medianFloat(c.rru)), num(medianFloat(c.wruReported)), num(medianFloat(c.wruBilled)))
}

// measured runs f with a recording usage and adds its cost to c (nil:
// f runs unmeasured).
func (c *opCost) measured(ctx context.Context, e *env, f func(ctx context.Context) error) error {
	if c == nil {
		return f(ctx)
	}
	u := &meter.Usage{Record: true}
	if err := f(meter.WithUsage(ctx, u)); err != nil {
		return err
	}
	c.add(e, ctx, u)
	return nil
}

// ordersScenario measures the fulfilment rows.
func ordersScenario(ctx context.Context, parent *env) []systemFigure {
	fail := func(err error) []systemFigure {
		return []systemFigure{{figure: "fulfilment: claim, shipment, cancel, exports", measured: "failed: " + oneLine(err.Error())}}
	}
	e, err := parent.sibling(ctx, envConfig{})
	if err != nil {
		return fail(err)
	}
	defer e.close()
	apps := recipient.NewApp(e.store, recipient.Config{PublicBaseURL: "https://gifts.example.com"})
	var claimSvc, claimOwn, shipSvc, shipOwn, cancel, importRow opCost
	type placed struct{ org, id string }
	var svc, own []placed
	var tenants []tenant
	for o := range ordersOrgs {
		t, err := e.newTenant(ctx, fmt.Sprintf("ful%d", o), ordersPerOrg*ordersPrice*3)
		if err != nil {
			return fail(err)
		}
		tenants = append(tenants, t)
		svcCampaign, err := e.liveCampaign(ctx, t, ordersCatalogGift)
		if err != nil {
			return fail(err)
		}
		ownCampaign, err := e.liveCampaign(ctx, t, "")
		if err != nil {
			return fail(err)
		}
		for k := range ordersPerOrg {
			id, err := e.claimed(ctx, apps, t, svcCampaign, fmt.Sprintf("ful%ds", o), k, &claimSvc)
			if err != nil {
				return fail(err)
			}
			svc = append(svc, placed{t.orgID, id})
			if k < 10 {
				id, err := e.claimed(ctx, apps, t, ownCampaign, fmt.Sprintf("ful%do", o), k, &claimOwn)
				if err != nil {
					return fail(err)
				}
				own = append(own, placed{t.orgID, id})
			}
		}
	}
	// The operator's export: every page of the full queue.
	var opPages opCost
	rows := 0
	for cursor := ""; ; {
		var page recipient.OrdersPage
		err := opPages.measured(ctx, e, func(ctx context.Context) (err error) {
			page, err = apps.ServiceOrders(ctx, cursor, 100)
			return err
		})
		if err != nil {
			return fail(err)
		}
		rows += len(page.Orders)
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	if rows != len(svc) {
		return fail(fmt.Errorf("the operator's export listed %d of %d open service orders", rows, len(svc)))
	}
	// The organization's export of its 60 open service orders, 20 a page.
	var orgPages opCost
	key := tenants[0].key
	if _, _, err := e.exportPage(ctx, key, "/api/campaigns/orders/export?status=open&limit=1"); err != nil {
		return fail(err) // warms the API key cache, as every endpoint row
	}
	for path := "/api/campaigns/orders/export?status=open&limit=20"; path != ""; {
		next, u, err := e.exportPage(ctx, key, path)
		if err != nil {
			return fail(err)
		}
		orgPages.add(e, ctx, u)
		path = next
	}
	ship := func(c *opCost, p placed, k int) error {
		return c.measured(ctx, e, func(ctx context.Context) error {
			_, _, err := apps.Ship(ctx, p.org, p.id, fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: fmt.Sprintf("1ZBENCH%08d", k)})
			return err
		})
	}
	for k := range 20 {
		if err := ship(&shipSvc, svc[k], k); err != nil {
			return fail(err)
		}
		if err := ship(&shipOwn, own[k], 1000+k); err != nil {
			return fail(err)
		}
		if err := cancel.measured(ctx, e, func(ctx context.Context) error {
			_, _, err := apps.CancelOrder(ctx, svc[20+k].org, svc[20+k].id, "bench")
			return err
		}); err != nil {
			return fail(err)
		}
	}
	// The operator's import: rows of 40 orders, 20 of them shipped above
	// (each unchanged), one file.
	var lines []string
	for k := range 40 {
		lines = append(lines, fmt.Sprintf("%s,UPS,1ZBENCH%08d,", svc[k%20+40*(k/20)].id, k%20+40*(k/20)))
	}
	u := &meter.Usage{Record: true}
	res, err := apps.ImportServiceShipments(meter.WithUsage(ctx, u), strings.NewReader(strings.Join(lines, "\n")))
	if err != nil || res.Failed > 0 {
		return fail(fmt.Errorf("operator import: %d failed, %v", res.Failed, err))
	}
	importRow.add(e, ctx, u)
	per := func(v []float64) string { return num(medianFloat(v) / float64(len(lines))) }
	return []systemFigure{
		{figure: "claim opening an order the operator ships (service-catalog gift; the order carries the queue and lookup keys)", measured: claimSvc.String() + fmt.Sprintf(" (median of %d claims)", len(claimSvc.requests)), method: ordersMethod},
		{figure: "claim opening an order the organization ships (its own gift)", measured: claimOwn.String() + fmt.Sprintf(" (median of %d)", len(claimOwn.requests))},
		{figure: "shipment of a service order (leaves the operator's queue)", measured: shipSvc.String() + " (median of 20)"},
		{figure: "shipment of an organization's order", measured: shipOwn.String() + " (median of 20)"},
		{figure: "cancel of a service order, with its refund", measured: cancel.String() + " (median of 20)"},
		{figure: fmt.Sprintf("operator's export (`admin orders export`), a page of 100 of %d open service orders in %d organizations", len(svc), ordersOrgs),
			measured: fmt.Sprintf("%s requests, %s RRU per page (median of %d pages; 4 Queries of the queue's shards, 1 BatchGetItem)",
				num(medianFloat(opPages.requests)), num(medianFloat(opPages.rru)), len(opPages.requests))},
		{figure: fmt.Sprintf("organization's export (GET /orders/export?status=open&limit=20), a page of its %d open orders (%d of service-catalog gifts)", ordersPerOrg+10, ordersPerOrg),
			measured: fmt.Sprintf("%s requests, %s RRU per page (median of %d pages; 1 Query of its Slim partition, 1 BatchGetItem)",
				num(medianFloat(orgPages.requests)), num(medianFloat(orgPages.rru)), len(orgPages.requests))},
		{figure: "operator's shipment import (`admin orders import-shipments`), per row of a file of 40 (20 new, 20 sent before)",
			measured: fmt.Sprintf("%s requests, %s RRU, %s WRU billed (est.) per row; %d shipped, %d unchanged",
				per(importRow.requests), per(importRow.rru), per(importRow.wruBilled), res.Shipped, res.Unchanged)},
	}
}

// ordersMethod says how the fulfilment rows were measured.
const ordersMethod = "Fulfilment rows: on a table of their own, 4 organizations each claim 60 recipients of a service-catalog gift and 10 of a gift of their own, through the recipient slice's use cases over the metered client (the endpoints' own DynamoDB requests; the API key lookup is cached); then every page of the operator's export, the organization's export through the API, 20 shipments of each kind, 20 cancels and one operator import. WRU billed (est.) as for the endpoints: it counts a put's index entries, not those the put removes (a shipment's leaving the queue, 1 unit), and counts an index key a put rewrites unchanged (the lookup key, which AWS does not bill again)."

// liveCampaign creates a live campaign of giftID ("" for a new gift of t's
// own) and returns its id.
func (e *env) liveCampaign(ctx context.Context, t tenant, giftID string) (string, error) {
	if giftID == "" {
		var g struct {
			Data struct {
				GiftID string `json:"giftId"`
			} `json:"data"`
		}
		res, err := e.expect(ctx, t, http.StatusCreated, "POST", "/api/campaigns/gifts", giftBody(0))
		if err != nil {
			return "", err
		}
		if err := res.decode(&g); err != nil {
			return "", err
		}
		giftID = g.Data.GiftID
	}
	body, err := campaignBody("Fulfilment", nil, ordersPrice)
	if err != nil {
		return "", err
	}
	body["campaignData"].(map[string]any)["giftIds"] = []string{giftID}
	id, err := e.createCampaign(ctx, t, body)
	if err != nil {
		return "", err
	}
	_, err = e.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(e.table),
		Key:                      map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#" + t.orgID}, "SK": &types.AttributeValueMemberS{Value: "CAMPAIGN#" + id}},
		UpdateExpression:         aws.String("SET #st = :st"),
		ExpressionAttributeNames: map[string]string{"#st": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":st": &types.AttributeValueMemberS{Value: "live"}},
	})
	return id, err
}

// claimed adds recipient k of run to campaignID and claims its gift,
// measuring the claim into c; it returns the order's id.
func (e *env) claimed(ctx context.Context, apps *recipient.App, t tenant, campaignID, run string, k int, c *opCost) (string, error) {
	res, err := e.expect(ctx, t, http.StatusOK, "POST", "/api/campaigns/campaigns/"+campaignID+"/add-recipient", recipientBody(run, k))
	if err != nil {
		return "", err
	}
	var added struct {
		RecipientID string `json:"recipientId"`
	}
	if err := res.decode(&added); err != nil {
		return "", err
	}
	cmp, err := e.store.Campaign(ctx, t.orgID, campaignID)
	if err != nil {
		return "", err
	}
	var r recipient.Recipient
	err = c.measured(ctx, e, func(ctx context.Context) (err error) {
		r, err = apps.Claim(ctx, t.orgID, campaignID, added.RecipientID, recipient.ClaimInput{GiftID: cmp.CampaignData.GiftIDs[0],
			ShippingAddress: recipient.ShippingAddress{Line1: "1 Main Street", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}})
		return err
	})
	id, _ := r.ShipmentInfo["orderId"].(string)
	if err == nil && id == "" {
		err = fmt.Errorf("claim of %s opened no order", added.RecipientID)
	}
	return id, err
}

// exportPage gets one page of the organization's export with key and
// returns the next page's path ("" after the last) and the page's
// DynamoDB calls, as the server recorded them.
func (e *env) exportPage(ctx context.Context, key, path string) (string, *meter.Usage, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", e.base+path, nil)
	if err != nil {
		return "", nil, err
	}
	req.Header.Set("x-api-key", key)
	res, err := e.http.Do(req)
	if err != nil {
		return "", nil, err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("GET %s: %d", path, res.StatusCode)
	}
	u := e.last.Load()
	link := res.Header.Get("Link")
	if link == "" {
		return "", u, nil
	}
	next, _, _ := strings.Cut(strings.TrimPrefix(link, "<"), ">")
	return next, u, nil
}
