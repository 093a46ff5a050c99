package fulfilment_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestOrderMovesForwardOnly: open → shipped → in_transit → an end, with
// skips; never back, never out of an end, never to the same state.
func TestOrderMovesForwardOnly(t *testing.T) {
	t.Parallel()
	const (
		open, shipped, transit = fulfilment.StatusOpen, fulfilment.StatusShipped, fulfilment.StatusInTransit
		delivered, cancelled   = fulfilment.StatusDelivered, fulfilment.StatusCancelled
		failed                 = fulfilment.StatusFailed
	)
	for _, tt := range []struct {
		from, to fulfilment.Status
		want     bool
	}{
		{open, shipped, true}, {open, delivered, true}, {open, cancelled, true}, {shipped, transit, true},
		{shipped, delivered, true}, {transit, delivered, true}, {transit, failed, true}, {shipped, failed, true},
		{shipped, shipped, false}, {transit, shipped, false}, {delivered, transit, false}, {delivered, failed, false},
		{failed, delivered, false}, {cancelled, shipped, false}, {"lost", delivered, false}, {open, "lost", false},
	} {
		if got := fulfilment.CanMove(tt.from, tt.to); got != tt.want {
			t.Errorf("CanMove(%s, %s) = %v; want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

// TestRecipientStatusForOrder: the recipient states an order's states
// imply are existing ones; the ends off the way imply none.
func TestRecipientStatusForOrder(t *testing.T) {
	t.Parallel()
	want := map[fulfilment.Status]gifting.RecipientStatus{
		fulfilment.StatusOpen: gifting.RecipientProcessing, fulfilment.StatusShipped: gifting.RecipientShipped,
		fulfilment.StatusInTransit: gifting.RecipientInTransit, fulfilment.StatusDelivered: gifting.RecipientDelivered,
	}
	for _, s := range fulfilment.Statuses {
		got, ok := fulfilment.RecipientStatusFor(s)
		w, wok := want[s]
		if ok != wok || got != w {
			t.Errorf("RecipientStatusFor(%s) = %q, %v; want %q, %v", s, got, ok, w, wok)
		}
		if ok && !got.Valid() {
			t.Errorf("%s implies %q, no recipient state", s, got)
		}
	}
}

func TestFulfillerOfGift(t *testing.T) {
	t.Parallel()
	if fulfilment.FulfillerOf(true) != fulfilment.FulfillerService || fulfilment.FulfillerOf(false) != fulfilment.FulfillerOrganization {
		t.Error("the service catalog's gifts are the operator's to ship, an organization's own are its")
	}
}
