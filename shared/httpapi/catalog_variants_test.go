package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// giftWithVariants is a gift as its API answers it, the variant fields
// of interest.
type giftWithVariants struct {
	GiftID    string `json:"giftId"`
	Inventory struct {
		Total, Available, Reserved int
	} `json:"inventory"`
	Variants []struct {
		VariantID string `json:"variantId"`
		Name      string `json:"name"`
		Inventory struct {
			Total, Available, Reserved int
		} `json:"inventory"`
	} `json:"variants"`
	LowStockThreshold *int `json:"lowStockThreshold"`
}

// TestGiftVariantsThroughTheAPI: a gift created with sizes and a
// low-stock threshold (no inventory of its own) counts their sum, each
// size gets an id, and GET shows them; bad variants are 400s naming the
// field, with nothing written; a PATCH adds a size and keeps the others
// by id, and null clears the threshold.
func TestGiftVariantsThroughTheAPI(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	body := map[string]any{"name": "Hoodie", "price": 30, "currency": "USD", "lowStockThreshold": 2, "variants": []map[string]any{
		{"name": "S", "inventory": map[string]any{"total": 5, "available": 5, "reserved": 0}},
		{"name": "M", "inventory": map[string]any{"total": 4, "available": 3, "reserved": 1}},
	}}
	res := api.Do("POST", "/api/campaigns/gifts", body)
	var created struct {
		Data giftWithVariants `json:"data"`
	}
	res.JSON(t, &created)
	g := created.Data
	if res.Status != http.StatusCreated || len(g.Variants) != 2 || g.Variants[0].VariantID == "" ||
		g.Variants[0].VariantID == g.Variants[1].VariantID || g.Inventory.Total != 9 || g.Inventory.Available != 8 ||
		g.Inventory.Reserved != 1 || g.LowStockThreshold == nil || *g.LowStockThreshold != 2 {
		t.Fatalf("create: %d %s; want two sizes with ids, 9 units in all, threshold 2", res.Status, res.Body)
	}
	var read giftWithVariants
	api.Do("GET", "/api/campaigns/gifts/"+g.GiftID, nil).JSON(t, &read)
	if len(read.Variants) != 2 || read.Variants[1].Name != "M" || read.Variants[1].Inventory.Reserved != 1 || read.Inventory.Total != 9 {
		t.Errorf("GET: %+v; want the sizes as created", read)
	}
	for _, c := range []struct {
		name  string
		edit  func(b map[string]any)
		field string
	}{
		{"an inventory that is not the sum", func(b map[string]any) {
			b["inventory"] = map[string]any{"total": 1, "available": 1, "reserved": 0}
		}, "inventory"},
		{"a size named twice", func(b map[string]any) {
			b["variants"] = []map[string]any{{"name": "S", "inventory": map[string]any{"total": 1, "available": 1, "reserved": 0}},
				{"name": "s", "inventory": map[string]any{"total": 1, "available": 1, "reserved": 0}}}
		}, "variants[1].name"},
		{"an id on a new gift", func(b map[string]any) {
			b["variants"] = []map[string]any{{"variantId": "mine", "name": "S", "inventory": map[string]any{"total": 1, "available": 1, "reserved": 0}}}
		}, "variants[0].variantId"},
		{"neither inventory nor variants", func(b map[string]any) { delete(b, "variants") }, "inventory"},
		{"a negative threshold", func(b map[string]any) { b["lowStockThreshold"] = -1 }, "lowStockThreshold"},
	} {
		b := map[string]any{}
		for k, v := range body {
			b[k] = v
		}
		c.edit(b)
		res := api.Do("POST", "/api/campaigns/gifts", b)
		if m := res.Map(t); res.Status != http.StatusBadRequest || m["details"] == nil || m["details"].(map[string]any)[c.field] == nil {
			t.Errorf("%s: %d %s; want 400 naming %s", c.name, res.Status, res.Body, c.field)
		}
	}
	var list struct {
		Total int `json:"total"`
	}
	api.Do("GET", "/api/campaigns/gifts?isDelightloop=false", nil).JSON(t, &list)
	if list.Total != 1 {
		t.Errorf("%d own gifts after the refused creates; want the one", list.Total)
	}

	patch := map[string]any{"lowStockThreshold": nil, "variants": []map[string]any{
		{"variantId": g.Variants[0].VariantID, "name": "Small", "inventory": map[string]any{"total": 6, "available": 6, "reserved": 0}},
		{"variantId": g.Variants[1].VariantID, "name": "M", "inventory": map[string]any{"total": 4, "available": 3, "reserved": 1}},
		{"name": "L", "inventory": map[string]any{"total": 2, "available": 2, "reserved": 0}},
	}}
	res = api.Do("PATCH", "/api/campaigns/gifts/"+g.GiftID, patch)
	var patched struct {
		Data giftWithVariants `json:"data"`
	}
	res.JSON(t, &patched)
	p := patched.Data
	if res.Status != http.StatusOK || len(p.Variants) != 3 || p.Variants[0].VariantID != g.Variants[0].VariantID ||
		p.Variants[0].Name != "Small" || p.Variants[2].VariantID == "" || p.Inventory.Total != 12 || p.LowStockThreshold != nil {
		t.Errorf("PATCH: %d %s; want S renamed by its id, L new, 12 units, no threshold", res.Status, res.Body)
	}
	drop := map[string]any{"variants": []map[string]any{
		{"variantId": g.Variants[0].VariantID, "name": "Small", "inventory": map[string]any{"total": 6, "available": 6, "reserved": 0}}}}
	if res := api.Do("PATCH", "/api/campaigns/gifts/"+g.GiftID, drop); res.Status != http.StatusBadRequest {
		t.Errorf("removing M, which holds a reserved unit: %d %s; want 400", res.Status, res.Body)
	}
}
