package pages

import (
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/i18n"
	"github.com/giftcampaign/service/shared/recipient"
)

// step is one stage of the landing page's timeline. Each says in words
// whether it is done, the current one or still to come (State), so the
// page does not tell them apart by colour alone; the current one is also
// marked aria-current="step".
type step struct {
	Label, State  string
	Done, Current bool
	// When is the day the stage was reached, when known.
	When string
	// Detail is a line about the stage: the carrier and tracking number,
	// the estimated delivery.
	Detail string
	// Link is the carrier's tracking page (https only), LinkText its text.
	Link, LinkText string
}

// timelineStages are the stages a recipient's gift goes through once its
// address is confirmed, each reached at the recipient status given (its
// order's shipment moves the recipient: docs/fulfilment.md).
var timelineStages = []struct {
	label string
	from  gifting.RecipientStatus
}{
	{"Confirmed", gifting.RecipientAddressConfirmed},
	{"Shipped", gifting.RecipientShipped},
	{"In transit", gifting.RecipientInTransit},
	{"Delivered", gifting.RecipientDelivered},
}

// timeline is the landing page's timeline of claimed r: confirmed, shipped
// (with the carrier, the tracking number and a link to the carrier's
// tracking page), in transit (with the estimated delivery while it is
// known and the gift not delivered), delivered. The current stage is the
// last one reached; every earlier one is done.
func timeline(r recipient.Recipient, l i18n.Lang) []step {
	info := r.ShipmentInfo
	text := func(key string) string { s, _ := info[key].(string); return s }
	rank := r.Status.Rank()
	current := 0
	for i, s := range timelineStages {
		if rank >= s.from.Rank() {
			current = i
		}
	}
	steps := make([]step, len(timelineStages))
	for i, s := range timelineStages {
		st := step{Label: l.Text(s.label), Done: i <= current, Current: i == current, State: l.T("not yet")}
		switch {
		case st.Current:
			st.State = l.T("now")
		case st.Done:
			st.State = l.T("done")
		}
		steps[i] = st
	}
	if r.ClaimedAt != nil {
		steps[0].When = l.Day(*r.ClaimedAt)
	}
	steps[0].Detail = l.T("Your address is confirmed.")
	if r.Status == gifting.RecipientProcessing {
		steps[0].Detail = l.T("Your gift is being prepared.")
	}
	steps[1].When = l.Day(parseTime(text("shippedAt")))
	if c, n := text("carrier"), text("trackingNumber"); c != "" && n != "" {
		steps[1].Detail = l.T("With %[1]s, tracking number %[2]s.", c, n)
		if link := r.TrackingURL(); link != "" {
			steps[1].Link, steps[1].LinkText = link, l.T("Track your parcel on the %s website", c)
		}
	}
	if eta := parseTime(text("estimatedDeliveryAt")); !eta.IsZero() && rank < gifting.RecipientDelivered.Rank() {
		steps[2].Detail = l.T("Estimated delivery: %s.", l.Day(eta))
	}
	steps[3].When = l.Day(parseTime(text("deliveredAt")))
	return ended(steps, current, info, l)
}

// orderEnded is the end of a recipient's order that will not arrive
// (cancelled, failed) from its shipmentInfo, "" for any other order.
func orderEnded(info map[string]any) fulfilment.Status {
	switch st, _ := info["orderStatus"].(string); fulfilment.Status(st) {
	case fulfilment.StatusCancelled:
		return fulfilment.StatusCancelled
	case fulfilment.StatusFailed:
		return fulfilment.StatusFailed
	}
	return ""
}

// ended ends the timeline of an order that will not arrive: a cancelled
// one (before shipment) or one the carrier could not deliver. The stages
// reached stay; the next is the end, current, saying what happened in
// words, and the stages that will never come are not shown (a recipient
// must not read "being prepared" about a gift that was cancelled).
func ended(steps []step, current int, info map[string]any, l i18n.Lang) []step {
	text := func(key string) string { s, _ := info[key].(string); return s }
	var end step
	switch orderEnded(info) {
	case fulfilment.StatusCancelled:
		end = step{Label: l.T("Cancelled"), When: l.Day(parseTime(text("cancelledAt"))),
			Detail: l.T("The sender cancelled this gift before it shipped, so nothing is on its way to you.")}
	case fulfilment.StatusFailed:
		end = step{Label: l.T("Not delivered"), When: l.Day(parseTime(text("failedAt"))),
			Detail: l.T("The carrier could not deliver your parcel and is returning it to the sender, who has been told.")}
	default:
		return steps
	}
	end.Done, end.Current, end.State = true, true, l.T("now")
	out := append(slices.Clone(steps[:current+1]), end)
	out[current].Current, out[current].State = false, l.T("done")
	if current == 0 {
		out[0].Detail = l.T("Your address is confirmed.")
	}
	return out
}

// parseTime reads a time of shipmentInfo (gifting.FormatTime's form); the
// zero time when it is missing or malformed.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
