package catalog

import (
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// Variant is one variant of a gift (a size, a colour): the recipient
// chooses it on the claim page, and its stock is counted apart from the
// other variants'.
type Variant struct {
	// VariantID is the service's id of the variant (a new variant gets
	// one when the gift is written: AssignVariantIDs), unique across
	// gifts, so a claim form's choice names one variant of one gift.
	VariantID string
	Name      string
	Inventory Inventory
}

// Bounds of a gift's variants: a name of at most 100 characters (a
// radio button's label), at most 50 variants (a size run or a colour
// card, with room to spare; each adds a counter to the gift's item).
const (
	MaxVariants    = 50
	maxVariantName = 100
)

// AssignVariantIDs gives each variant of vs that has no id a new one from
// newID: a variant sent without an id is new.
func AssignVariantIDs(vs []Variant, newID func() string) {
	for i := range vs {
		if vs[i].VariantID == "" {
			vs[i].VariantID = newID()
		}
	}
}

// VariantsSum is the sum of the variants' counts: the stock of a gift
// that has variants.
func VariantsSum(vs []Variant) Inventory {
	var sum Inventory
	for _, v := range vs {
		sum.Total += v.Inventory.Total
		sum.Available += v.Inventory.Available
		sum.Reserved += v.Inventory.Reserved
	}
	return sum
}

// checkVariants checks g's variants and threshold and, with variants,
// makes g's inventory their sum: the rule that keeps a gift's own counts
// consistent with its variants'. An inventory sent with variants must be
// that sum already (or left out: all zeros), so a client never believes
// it set a count the service replaced.
func checkVariants(p *gifting.Problems, g *Gift) {
	if t := g.LowStockThreshold; t != nil && (*t < 0 || *t > MaxInventory) {
		p.Add("lowStockThreshold", "must be from 0 to "+itoa(MaxInventory))
	}
	if len(g.Variants) == 0 {
		g.Variants = nil
		return
	}
	if len(g.Variants) > MaxVariants {
		p.Add("variants", "must hold at most "+itoa(MaxVariants)+" variants")
		return
	}
	ids, names := map[string]bool{}, map[string]bool{}
	for i := range g.Variants {
		v := &g.Variants[i]
		field := "variants[" + itoa(i) + "]"
		v.Name = strings.TrimSpace(v.Name)
		switch key := strings.ToLower(v.Name); {
		case v.Name == "":
			p.Add(field+".name", "is required")
		case names[key]:
			p.Add(field+".name", "is the name of another variant of this gift")
		default:
			names[key] = true
		}
		p.AtMost(field+".name", v.Name, maxVariantName)
		if v.VariantID == "" {
			p.Add(field+".variantId", "is required")
		} else if ids[v.VariantID] {
			p.Add(field+".variantId", "is the id of another variant of this gift")
		}
		ids[v.VariantID] = true
		checkInventoryAt(p, field+".inventory", v.Inventory)
	}
	sum := VariantsSum(g.Variants)
	if g.Inventory != (Inventory{}) && g.Inventory != sum {
		p.Add("inventory", "must be the sum of the variants' inventories, or left out (a gift with variants counts its stock per variant)")
	}
	if sum.Total > MaxInventory {
		p.Add("variants", "must count at most "+itoa(MaxInventory)+" units in all")
	}
	g.Inventory = sum
}

// checkVariantMove refuses a change of g's variants (to n's) that would
// strand units held by open orders: an order reserved its unit in the
// counts of its variant (or of the gift without variants) and moves it
// there when it ships or is cancelled, so a variant holding reserved
// units cannot be removed, and a gift holding reserved units cannot gain
// or lose variants.
func checkVariantMove(p *gifting.Problems, g, n Gift) {
	if (len(g.Variants) == 0) != (len(n.Variants) == 0) && g.Inventory.Reserved > 0 {
		p.Add("variants", "cannot be added to or all removed from a gift with units reserved by open orders: ship or cancel them first")
		return
	}
	kept := map[string]bool{}
	for _, v := range n.Variants {
		kept[v.VariantID] = true
	}
	for _, v := range g.Variants {
		if !kept[v.VariantID] && v.Inventory.Reserved > 0 {
			p.Add("variants", "must keep variant "+v.VariantID+" ("+v.Name+"): open orders hold units of it")
		}
	}
}

// checkVariantIDs refuses a variant id sent that is none of g's variants
// (a new gift has none): an id names an existing variant, whose stock it
// keeps; a new variant is sent without one.
func checkVariantIDs(p *gifting.Problems, g Gift, vs []Variant) {
	known := map[string]bool{}
	for _, v := range g.Variants {
		known[v.VariantID] = true
	}
	for i, v := range vs {
		if v.VariantID != "" && !known[v.VariantID] {
			p.Add("variants["+itoa(i)+"].variantId", "is not a variant of this gift: leave it out for a new variant")
		}
	}
}
