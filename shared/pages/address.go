package pages

import (
	"strings"

	"github.com/giftcampaign/service/shared/recipient"
)

// addressLines is a as the post of its country writes it, one line each,
// empty parts left out: where the town, the region and the postal code go
// differs by country, not by the reader's language. The formats are those
// of Google's address data (libaddressinput), which the Go module that
// carries it (github.com/bojanz/address) is not served here to use; the
// countries below are the ones whose order differs from the default
// ("<postal code> <town>", then the region, as in most of Europe).
func addressLines(a recipient.ShippingAddress) []string {
	country := strings.ToUpper(a.Country)
	var lines []string
	switch country {
	case "US", "CA", "AU", "NZ", "PH":
		// "Springfield, IL 62701" (AU and NZ without the comma).
		town := a.City
		if country != "AU" && country != "NZ" && a.City != "" && a.State != "" {
			town += ","
		}
		lines = []string{a.Line1, a.Line2, join(town, a.State, a.Zip)}
	case "GB", "IE":
		// The town and the postcode on lines of their own.
		lines = []string{a.Line1, a.Line2, a.City, a.State, a.Zip}
	default:
		lines = []string{a.Line1, a.Line2, join(a.Zip, a.City), a.State}
	}
	lines = append(lines, country)
	kept := lines[:0]
	for _, l := range lines {
		if l != "" {
			kept = append(kept, l)
		}
	}
	return kept
}

// join is the non-empty parts joined by spaces.
func join(parts ...string) string {
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}
