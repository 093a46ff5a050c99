package catalog_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
)

// hoodie is a gift with two sizes, 3 units of S (1 reserved) and 2 of M.
func hoodie() catalog.Gift {
	return catalog.Gift{Name: "Hoodie", Price: 30, Currency: "USD", Status: catalog.GiftAvailable, Variants: []catalog.Variant{
		{VariantID: "v-s", Name: "S", Inventory: catalog.Inventory{Total: 3, Available: 2, Reserved: 1}},
		{VariantID: "v-m", Name: "M", Inventory: catalog.Inventory{Total: 2, Available: 2}},
	}}
}

// TestVariantsMakeTheGiftsInventory: a gift's counts are its variants'
// sum, whatever inventory is left out; one sent must be that sum.
func TestVariantsMakeTheGiftsInventory(t *testing.T) {
	t.Parallel()
	g := hoodie()
	if err := catalog.CheckGift(&g); err != nil {
		t.Fatal(err)
	}
	if want := (catalog.Inventory{Total: 5, Available: 4, Reserved: 1}); g.Inventory != want {
		t.Errorf("inventory %+v; want the variants' sum %+v", g.Inventory, want)
	}
	g.Inventory = catalog.Inventory{Total: 5, Available: 4, Reserved: 1}
	if err := catalog.CheckGift(&g); err != nil {
		t.Errorf("the sum sent: %v", err)
	}
	g.Inventory.Total = 9
	wantField(t, catalog.CheckGift(&g), "inventory")
}

func TestCheckVariants(t *testing.T) {
	t.Parallel()
	with := func(f func(g *catalog.Gift)) catalog.Gift {
		g := hoodie()
		f(&g)
		return g
	}
	many := make([]catalog.Variant, catalog.MaxVariants+1)
	for i := range many {
		many[i] = catalog.Variant{VariantID: "v" + strconv.Itoa(i), Name: "Size " + strconv.Itoa(i)}
	}
	for _, tt := range []struct {
		name  string
		g     catalog.Gift
		field string
	}{
		{"two sizes", hoodie(), ""},
		{"a threshold", with(func(g *catalog.Gift) { g.LowStockThreshold = ptr(0) }), ""},
		{"a negative threshold", with(func(g *catalog.Gift) { g.LowStockThreshold = ptr(-1) }), "lowStockThreshold"},
		{"a threshold past the bound", with(func(g *catalog.Gift) { g.LowStockThreshold = ptr(catalog.MaxInventory + 1) }), "lowStockThreshold"},
		{"a blank name", with(func(g *catalog.Gift) { g.Variants[1].Name = "  " }), "variants[1].name"},
		{"a name twice", with(func(g *catalog.Gift) { g.Variants[1].Name = "s" }), "variants[1].name"},
		{"a long name", with(func(g *catalog.Gift) { g.Variants[0].Name = long(101) }), "variants[0].name"},
		{"an id twice", with(func(g *catalog.Gift) { g.Variants[1].VariantID = "v-s" }), "variants[1].variantId"},
		{"no id", with(func(g *catalog.Gift) { g.Variants[0].VariantID = "" }), "variants[0].variantId"},
		{"more reserved than total", with(func(g *catalog.Gift) { g.Variants[1].Inventory.Reserved = 1 }), "variants[1].inventory"},
		{"a negative count", with(func(g *catalog.Gift) { g.Variants[0].Inventory.Available = -1 }), "variants[0].inventory"},
		{"too many", with(func(g *catalog.Gift) { g.Variants = many }), "variants"},
		{"a sum past the bound", with(func(g *catalog.Gift) {
			for i := range g.Variants {
				g.Variants[i].Inventory = catalog.Inventory{Total: catalog.MaxInventory, Available: catalog.MaxInventory}
			}
		}), "variants"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := tt.g
			wantField(t, catalog.CheckGift(&g), tt.field)
		})
	}
}

// TestVariantPatches: variants sent replace the gift's, a new one gets an
// id and a known id keeps its variant; an unknown id is refused; units
// reserved by open orders are never stranded (a variant holding them is
// not removed, a gift holding them neither gains its first variant nor
// loses its last); null clears the threshold.
func TestVariantPatches(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	stored := hoodie()
	if err := catalog.CheckGift(&stored); err != nil {
		t.Fatal(err)
	}
	n := 0
	newID := func() string { n++; return "new-" + strconv.Itoa(n) }
	apply := func(p catalog.GiftPatch, g catalog.Gift) (catalog.Gift, error) {
		q, err := p.WithVariantIDs(g, newID)
		if err != nil {
			return g, err
		}
		return g, q.Apply(&g, now)
	}

	l := catalog.Variant{Name: "L", Inventory: catalog.Inventory{Total: 4, Available: 4}}
	got, err := apply(catalog.GiftPatch{Variants: append(stored.Variants, l)}, stored)
	if err != nil || len(got.Variants) != 3 || got.Variants[2].VariantID != "new-1" || got.Inventory.Total != 9 {
		t.Errorf("adding L: %v, %+v; want three variants, L with a new id, 9 units in all", err, got)
	}
	_, err = apply(catalog.GiftPatch{Variants: []catalog.Variant{{VariantID: "v-x", Name: "X"}}}, stored)
	wantField(t, err, "variants[0].variantId")
	_, err = apply(catalog.GiftPatch{Variants: stored.Variants[1:]}, stored) // S holds a reserved unit
	wantField(t, err, "variants")
	got, err = apply(catalog.GiftPatch{Variants: stored.Variants[:1]}, stored) // M holds none
	if err != nil || len(got.Variants) != 1 || got.Inventory != stored.Variants[0].Inventory {
		t.Errorf("removing M: %v, %+v; want S alone, its counts the gift's", err, got)
	}
	_, err = apply(catalog.GiftPatch{Variants: []catalog.Variant{}}, stored)
	wantField(t, err, "variants")
	plain := mug() // 2 units reserved
	_, err = apply(catalog.GiftPatch{Variants: []catalog.Variant{l}}, plain)
	wantField(t, err, "variants")
	_, err = apply(catalog.GiftPatch{Inventory: &catalog.Inventory{Total: 1, Available: 1}}, stored)
	wantField(t, err, "inventory")

	stored.LowStockThreshold = ptr(3)
	got, err = apply(catalog.GiftPatch{ClearLowStock: true}, stored)
	if err != nil || got.LowStockThreshold != nil {
		t.Errorf("clearing the threshold: %v, %v", err, got.LowStockThreshold)
	}
	got, err = apply(catalog.GiftPatch{LowStockThreshold: ptr(5)}, stored)
	if err != nil || got.LowStockThreshold == nil || *got.LowStockThreshold != 5 || *stored.LowStockThreshold != 3 {
		t.Errorf("setting the threshold: %v, %v (the stored gift's %v must not move)", err, got.LowStockThreshold, *stored.LowStockThreshold)
	}
}
