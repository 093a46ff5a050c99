package main

import (
	"context"
	"fmt"

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
