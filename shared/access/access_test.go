package access_test

import (
	"errors"
	"testing"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// TestNewOrgCheck: an organization needs a usable id, a name, initial
// credits within a top-up's bounds and an ISO currency; the currency
// defaults to USD and the products to none.
func TestNewOrgCheck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		in     access.NewOrg
		fields []string
	}{
		{"valid, defaults filled", access.NewOrg{OrgID: "acme", Name: "Acme"}, nil},
		{"reserved id", access.NewOrg{OrgID: gifting.CatalogOrgID, Name: "x"}, []string{"orgId"}},
		{"upper-case id, no name", access.NewOrg{OrgID: "ACME", Name: "  "}, []string{"orgId", "name"}},
		{"credits over a top-up", access.NewOrg{OrgID: "acme", Name: "Acme", Credits: wallet.MaxTopUp + 1}, []string{"credits"}},
		{"negative credits, bad currency", access.NewOrg{OrgID: "acme", Name: "Acme", Credits: -1, Budget: gifting.Budget{Currency: "dollars"}},
			[]string{"credits", "budget.currency"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			err := in.Check()
			if tt.fields == nil {
				if err != nil || in.Budget.Currency != "USD" || in.Products == nil {
					t.Errorf("Check() = %v, currency %q, products %v; want nil, USD, []", err, in.Budget.Currency, in.Products)
				}
				return
			}
			var e *gifting.Error
			if !errors.As(err, &e) || e.Code != gifting.CodeValidation || len(e.Details) != len(tt.fields) {
				t.Fatalf("Check() = %v; want VALIDATION_FAILED naming %v", err, tt.fields)
			}
			for _, f := range tt.fields {
				if e.Details[f] == "" {
					t.Errorf("Check() details %v; want a problem with %s", e.Details, f)
				}
			}
		})
	}
}

// TestCheckRateLimits: only rate-limited classes, each at least 1.
func TestCheckRateLimits(t *testing.T) {
	t.Parallel()
	if err := access.CheckRateLimits(map[gifting.RateClass]int{gifting.RateAddRecipient: 1}); err != nil {
		t.Errorf("a limit of 1: %v", err)
	}
	err := access.CheckRateLimits(map[gifting.RateClass]int{gifting.RateAddRecipient: 0, "coffee": 5})
	var e *gifting.Error
	if !errors.As(err, &e) || e.Code != gifting.CodeValidation || e.Details["rateLimits.coffee"] != "is not a rate-limited class" ||
		e.Details["rateLimits."+string(gifting.RateAddRecipient)] != "must be at least 1" {
		t.Errorf("a limit of 0 and an unknown class: %v; want VALIDATION_FAILED naming both", err)
	}
}
