package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/recipient"
)

// The organization's fulfilment endpoints (docs/fulfilment.md): each case
// opens the orders its calls need by claims of a gift of the tenant's own
// (bench/orders.go has the claims' own figures).

// openOrders opens n orders in t's organization and returns their ids.
func (e *env) openOrders(ctx context.Context, t tenant, n int) ([]string, error) {
	campaignID, err := e.liveCampaign(ctx, t, "")
	if err != nil {
		return nil, err
	}
	apps := recipient.NewApp(e.store, recipient.Config{PublicBaseURL: "https://gifts.example.com"})
	ids := make([]string, n)
	for k := range n {
		if ids[k], err = e.claimed(ctx, apps, t, campaignID, "ord"+t.orgID, k, nil); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// prepareOrdersPage opens 25 orders and reads a page of 20 at path.
func prepareOrdersPage(path string) func(context.Context, *env, tenant, int) (func(int) call, error) {
	return func(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
		if _, err := e.openOrders(ctx, t, 25); err != nil {
			return nil, err
		}
		return same("GET", path, nil), nil
	}
}

func prepareGetOrder(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	ids, err := e.openOrders(ctx, t, 1)
	if err != nil {
		return nil, err
	}
	return same("GET", "/api/campaigns/orders/"+ids[0], nil), nil
}

// prepareShipOrder ships a new order each call.
func prepareShipOrder(ctx context.Context, e *env, t tenant, n int) (func(int) call, error) {
	ids, err := e.openOrders(ctx, t, n)
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		return call{method: "POST", path: "/api/campaigns/orders/" + ids[i] + "/shipments",
			body: map[string]any{"carrier": "UPS", "trackingNumber": fmt.Sprintf("1ZBENCHEP%08d", i)}}
	}, nil
}

// prepareCancelOrder cancels a new order each call (its credits back).
func prepareCancelOrder(ctx context.Context, e *env, t tenant, n int) (func(int) call, error) {
	ids, err := e.openOrders(ctx, t, n)
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		return call{method: "POST", path: "/api/campaigns/orders/" + ids[i] + "/cancel", body: map[string]any{"reason": "bench"}}
	}, nil
}

// easyPostEvent is a request body sent as its exact bytes with EasyPost's
// signature header (env.do).
type easyPostEvent struct{ body, signature string }

// signedEvent signs body as EasyPost does: the hex HMAC-SHA256 of the raw
// body under the webhook secret (an ASCII secret is its own NFKD form).
func signedEvent(secret, body string) easyPostEvent {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(body))
	return easyPostEvent{body: body, signature: "hmac-sha256-hex=" + hex.EncodeToString(m.Sum(nil))}
}

// prepareTrackingEvent ships n orders with tracking numbers, stores the
// organization's EasyPost secret, and sends each order's tracker one
// in_transit event signed as EasyPost signs it: each call moves an order
// and its recipient (docs/fulfilment.md, "Carrier tracking with EasyPost").
func prepareTrackingEvent(ctx context.Context, e *env, t tenant, n int) (func(int) call, error) {
	ids, err := e.openOrders(ctx, t, n)
	if err != nil {
		return nil, err
	}
	const secret = "bench-easypost-webhook-secret"
	if _, err := e.expect(ctx, t, http.StatusOK, "PUT", "/api/campaigns/integrations/easypost", map[string]any{"webhookSecret": secret}); err != nil {
		return nil, err
	}
	codes := make([]string, n)
	for i, id := range ids {
		codes[i] = fmt.Sprintf("1ZBENCHTRK%08d", i)
		if _, err := e.expect(ctx, t, http.StatusOK, "POST", "/api/campaigns/orders/"+id+"/shipments",
			map[string]any{"carrier": "UPS", "trackingNumber": codes[i]}); err != nil {
			return nil, err
		}
	}
	at := time.Now().UTC().Format(time.RFC3339)
	return func(i int) call {
		body := fmt.Sprintf(`{"id":"evt_bench%d","object":"Event","description":"tracker.updated","result":{"object":"Tracker",`+
			`"tracking_code":%q,"carrier":"UPS","status":"in_transit","updated_at":%q}}`, i, codes[i], at)
		return call{method: "POST", path: "/api/campaigns/integrations/easypost/" + t.orgID + "/events", body: signedEvent(secret, body)}
	}, nil
}
