package suppression_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/suppression"
)

// TestRemovable: a bounce or the organization's own entry may come off the
// list; the person's own request never does, nor a reason not known.
func TestRemovable(t *testing.T) {
	for reason, want := range map[string]bool{suppression.Bounced: true, suppression.Manual: true,
		suppression.Unsubscribed: false, suppression.Complained: false, "": false, "something new": false} {
		if got := suppression.Removable(reason); got != want {
			t.Errorf("Removable(%q) = %v, want %v", reason, got, want)
		}
	}
}
