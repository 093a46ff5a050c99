package contactimport_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/contactimport"
)

// TestEnded: only a done or failed job lets its file go; one awaiting its
// upload or still running needs it.
func TestEnded(t *testing.T) {
	for status, want := range map[string]bool{
		contactimport.StatusAwaitingUpload: false,
		contactimport.StatusRunning:        false,
		contactimport.StatusDone:           true,
		contactimport.StatusFailed:         true,
	} {
		if got := (contactimport.Job{Status: status}).Ended(); got != want {
			t.Errorf("a %s job: Ended() = %v, want %v", status, got, want)
		}
	}
}
