package pages

import (
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// TestTimelineEnds: the timeline of an order that will not arrive keeps
// the stages reached and ends with what happened, current; any other
// order keeps its four stages.
func TestTimelineEnds(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status gifting.RecipientStatus
		order  string
		want   []string
	}{
		{"open", gifting.RecipientProcessing, "open", []string{"Confirmed", "Shipped", "In transit", "Delivered"}},
		{"cancelled before shipment", gifting.RecipientProcessing, "cancelled", []string{"Confirmed", "Cancelled"}},
		{"returned in transit", gifting.RecipientInTransit, "failed", []string{"Confirmed", "Shipped", "In transit", "Not delivered"}},
		{"returned once shipped", gifting.RecipientShipped, "failed", []string{"Confirmed", "Shipped", "Not delivered"}},
	} {
		r := recipient.Recipient{}
		r.Status, r.ShipmentInfo = tt.status, map[string]any{"orderStatus": tt.order}
		steps := timeline(r, english)
		var labels []string
		currents := 0
		for _, s := range steps {
			labels = append(labels, s.Label)
			if s.Current {
				currents++
			}
		}
		if len(labels) != len(tt.want) || currents != 1 {
			t.Errorf("%s: stages %v (%d current), want %v with one current", tt.name, labels, currents, tt.want)
			continue
		}
		for i := range labels {
			if labels[i] != tt.want[i] {
				t.Errorf("%s: stages %v, want %v", tt.name, labels, tt.want)
				break
			}
		}
		if tt.order != "open" && !steps[len(steps)-1].Current {
			t.Errorf("%s: the end is not the current stage", tt.name)
		}
		if tt.order == "cancelled" && steps[0].Detail != "Your address is confirmed." {
			t.Errorf("%s: the first stage says %q", tt.name, steps[0].Detail)
		}
	}
}
