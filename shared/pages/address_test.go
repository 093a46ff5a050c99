package pages

import (
	"slices"
	"testing"

	"github.com/giftcampaign/service/shared/recipient"
)

// TestAddressLines: each country's address in its post's order, whatever
// the page's language; parts left empty leave no blank line or stray
// comma.
func TestAddressLines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a    recipient.ShippingAddress
		want []string
	}{
		{recipient.ShippingAddress{Line1: "1 Main St", Line2: "Apt 2", City: "Springfield", State: "IL", Zip: "62701", Country: "US"},
			[]string{"1 Main St", "Apt 2", "Springfield, IL 62701", "US"}},
		{recipient.ShippingAddress{Line1: "1 Main St", City: "Springfield", Zip: "62701", Country: "us"},
			[]string{"1 Main St", "Springfield 62701", "US"}},
		{recipient.ShippingAddress{Line1: "Hauptstraße 5", City: "Berlin", Zip: "10115", Country: "DE"},
			[]string{"Hauptstraße 5", "10115 Berlin", "DE"}},
		{recipient.ShippingAddress{Line1: "Calle Mayor 1", City: "Madrid", State: "Madrid", Zip: "28013", Country: "ES"},
			[]string{"Calle Mayor 1", "28013 Madrid", "Madrid", "ES"}},
		{recipient.ShippingAddress{Line1: "10 Downing St", City: "London", Zip: "SW1A 2AA", Country: "GB"},
			[]string{"10 Downing St", "London", "SW1A 2AA", "GB"}},
		{recipient.ShippingAddress{Line1: "1 George St", City: "Sydney", State: "NSW", Zip: "2000", Country: "AU"},
			[]string{"1 George St", "Sydney NSW 2000", "AU"}},
	} {
		if got := addressLines(tt.a); !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %q, want %q", tt.a, got, tt.want)
		}
	}
}
