package recipient

import (
	"context"
	"errors"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// Tracked is what a carrier's tracker event did to the order it tracks.
type Tracked struct {
	// Order is the order after the event (as it was when the event
	// changed nothing).
	Order fulfilment.Order
	// Applied is false when the event told nothing new: the same event
	// again, an older one arriving late, or the same view of the parcel.
	Applied bool
}

// Track applies a verified carrier tracker event (fulfilment.EasyPost's
// Verified) to the order of orgID shipped with its carrier and tracking
// code (fulfilment.DecideTrackerUpdate): the order's state moves forward
// only, with its scans and estimated delivery; the recipient moves with
// it (DecideOrderMove: shipped, in_transit, delivered, never backwards);
// a failed delivery returns the unit to the shelf; all in one
// transaction, conditioned on the order's version, which holds the
// tracker's updated_at the decision was made from. A replay or a late
// event changes nothing (Applied false). Errors: NOT_FOUND when no order
// of orgID has a shipment of that carrier and tracking number (another
// organization's included).
func (a *App) Track(ctx context.Context, orgID string, u fulfilment.TrackerUpdate) (Tracked, error) {
	carrier, number := fulfilment.CarrierKey(u.Carrier), fulfilment.TrackingKey(u.TrackingCode)
	for attempt := 1; ; attempt++ {
		cur, err := a.orderStore().OrderByTracking(ctx, orgID, carrier, number)
		if errors.Is(err, fulfilment.ErrNoOrder) {
			return Tracked{}, gifting.NotFound("shipment", u.TrackingCode)
		}
		if err != nil {
			return Tracked{}, err
		}
		p, err := fulfilment.DecideTrackerUpdate(cur, u, a.store.Now())
		if err != nil || p.Unchanged {
			return Tracked{Order: p.Order.Order}, err
		}
		rc, err := a.store.LoadRecipient(ctx, orgID, cur.CampaignID, cur.RecipientID)
		if err != nil {
			return Tracked{}, err
		}
		err = a.store.CommitTracking(ctx, p, DecideOrderMove(orgID, rc, p.Recipient))
		if again(err, attempt) {
			continue
		}
		return Tracked{Order: p.Order.Order, Applied: err == nil}, orderFailed(err, attempt)
	}
}
