package audience

import (
	"errors"
	"testing"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

func credits(n int64) *int64 { return &n }

// TestCheckNew: a new audience needs a name and a persona; a stated price
// is from 0 to MaxCreditsPerContact; a price and a gift together are
// refused; every problem is named at once.
func TestCheckNew(t *testing.T) {
	for _, tt := range []struct {
		name   string
		a      Audience
		price  Price
		fields []string
	}{
		{"ok", Audience{Name: " Eng ", ICPID: "p1"}, Price{CreditsPerContact: credits(0)}, nil},
		{"the highest price", Audience{Name: "Eng", ICPID: "p1"}, Price{CreditsPerContact: credits(MaxCreditsPerContact)}, nil},
		{"by gift", Audience{Name: "Eng", ICPID: "p1"}, Price{GiftID: " g1 "}, nil},
		{"negative price", Audience{Name: "Eng", ICPID: "p1"}, Price{CreditsPerContact: credits(-1)}, []string{"creditsPerContact"}},
		{"price too high", Audience{Name: "Eng", ICPID: "p1"}, Price{CreditsPerContact: credits(MaxCreditsPerContact + 1)}, []string{"creditsPerContact"}},
		{"both", Audience{Name: "Eng", ICPID: "p1"}, Price{CreditsPerContact: credits(3), GiftID: "g1"}, []string{"giftId"}},
		{"no name, no persona, both", Audience{Name: " "}, Price{CreditsPerContact: credits(3), GiftID: "g1"}, []string{"name", "icpId", "giftId"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, price := tt.a, tt.price
			err := CheckNew(&a, &price)
			var e *gifting.Error
			if len(tt.fields) == 0 {
				if err != nil {
					t.Fatalf("CheckNew = %v", err)
				}
				if a.Name != "Eng" || a.Tags == nil || (price.GiftID != "" && price.GiftID != "g1") {
					t.Errorf("normalized %+v %+v", a, price)
				}
				return
			}
			if !errors.As(err, &e) || e.Code != gifting.CodeValidation || len(e.Details) != len(tt.fields) {
				t.Fatalf("CheckNew = %v; want VALIDATION_FAILED naming %v", err, tt.fields)
			}
			for _, f := range tt.fields {
				if e.Details[f] == "" {
					t.Errorf("no problem named %s in %v", f, e.Details)
				}
			}
		})
	}
}

// TestPricedByCheapest: with no price and no gift, an audience is priced
// by the cheapest available gift (ties by id), in whole credits rounded
// up; with no available gift at 0, priced by none.
func TestPricedByCheapest(t *testing.T) {
	gift := func(id string, price float64, st catalog.GiftStatus) catalog.Gift {
		return catalog.Gift{GiftID: id, Price: price, Status: st}
	}
	for _, tt := range []struct {
		name  string
		gifts []catalog.Gift
		want  Meta
	}{
		{"cheapest available", []catalog.Gift{gift("b", 30, catalog.GiftAvailable), gift("a", 12.01, catalog.GiftAvailable), gift("c", 5, catalog.GiftPending)},
			Meta{CreditsPerContact: 13, PricedBy: PricedByGift, GiftID: "a"}},
		{"a tie goes to the first id", []catalog.Gift{gift("z", 10, catalog.GiftAvailable), gift("m", 10, catalog.GiftAvailable)},
			Meta{CreditsPerContact: 10, PricedBy: PricedByGift, GiftID: "m"}},
		{"none available", []catalog.Gift{gift("c", 5, catalog.GiftDelivered)}, Meta{PricedBy: PricedByNone}},
		{"no gift at all", nil, Meta{PricedBy: PricedByNone}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PricedByCheapest(tt.gifts)
			if err != nil || got.CreditsPerContact != tt.want.CreditsPerContact || got.PricedBy != tt.want.PricedBy || got.GiftID != tt.want.GiftID {
				t.Errorf("PricedByCheapest = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	if _, err := PricedBy(gift("x", -1, catalog.GiftAvailable)); gifting.ErrorCode(err) != gifting.CodeValidation {
		t.Errorf("a gift priced below 0: %v; want VALIDATION_FAILED", err)
	}
	if m := PricedAt(7); m.CreditsPerContact != 7 || m.PricedBy != PricedByInput || m.GiftID != "" {
		t.Errorf("PricedAt(7) = %+v", m)
	}
}
