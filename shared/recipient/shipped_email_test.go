package recipient

import (
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// claimedRecipient is testRecipient with its gift claimed at claimedAt and
// its order open (processing), as the claim leaves it.
func claimedRecipient(t *testing.T, claimedAt time.Time) Recipient {
	t.Helper()
	r := testRecipient(t, "Jane")
	r.MarkEmailSent("addressConfirmation", "m0", r.CreatedAt) // invited
	if err := r.Claim(gifting.Gift{GiftID: "g1", Name: "Coffee"}, ShippingAddress{Line1: "1 Main St", City: "Springfield", Zip: "62701", Country: "US"}, claimedAt); err != nil {
		t.Fatal(err)
	}
	if err := r.Advance(gifting.RecipientProcessing, claimedAt, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestShippedEmailIsScheduledOnceWhenTheGiftShips: the move to shipped
// activates and schedules the shipped email (the template has none, so
// the service's words), later moves leave it as it is, and a move
// straight to delivered never schedules it.
func TestShippedEmailIsScheduledOnceWhenTheGiftShips(t *testing.T) {
	claimed := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	shipped := claimed.Add(48 * time.Hour)
	r := claimedRecipient(t, claimed)
	if r.Emails.Shipped.Active || r.Emails.Shipped.ScheduledTime != "" {
		t.Fatalf("shipped email before the shipment: %+v", r.Emails.Shipped)
	}
	if err := r.Advance(gifting.RecipientShipped, shipped, nil); err != nil {
		t.Fatal(err)
	}
	e := r.Emails.Shipped
	if !e.Active || e.ScheduledTime != gifting.FormatTime(shipped) {
		t.Fatalf("shipped email after the shipment: %+v, want active at %s", e, gifting.FormatTime(shipped))
	}
	if kind, at, ok := r.NextEmail(); !ok || kind != "shipped" || !at.Equal(shipped) {
		t.Errorf("next email %s at %v (%v), want shipped at once", kind, at, ok)
	}
	if err := r.Advance(gifting.RecipientInTransit, shipped.Add(24*time.Hour), nil); err != nil {
		t.Fatal(err)
	}
	if r.Emails.Shipped.ScheduledTime != e.ScheduledTime {
		t.Errorf("in transit moved the shipped email to %s", r.Emails.Shipped.ScheduledTime)
	}

	// Delivered before the tick sent it: it never goes out, as it would
	// arrive after the gift.
	if err := r.Advance(gifting.RecipientDelivered, shipped.Add(30*time.Second), nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Emails.Shipped.NextSendAt(); ok {
		t.Errorf("shipped email still waiting once delivered: %+v", r.Emails.Shipped)
	}

	direct := claimedRecipient(t, claimed)
	if err := direct.Advance(gifting.RecipientDelivered, shipped, nil); err != nil {
		t.Fatal(err)
	}
	if direct.Emails.Shipped.ScheduledTime != "" {
		t.Errorf("a move straight to delivered scheduled the shipped email: %+v", direct.Emails.Shipped)
	}
}

// TestShippedEmailOnlyForMailedRecipients: a recipient whose template
// sends it nothing, or whose emails were stopped (an unsubscribe), gets
// no shipped email.
func TestShippedEmailOnlyForMailedRecipients(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	silent := claimedRecipient(t, now)
	for _, k := range gifting.EmailKinds {
		*silent.Emails.Kind(k) = EmailSchedule{}
	}
	stopped := claimedRecipient(t, now)
	stopped.StopEmails("", EmailUnsubscribed, now)
	for name, r := range map[string]*Recipient{"no emails": &silent, "unsubscribed": &stopped} {
		if err := r.Advance(gifting.RecipientShipped, now, nil); err != nil {
			t.Fatal(err)
		}
		if _, ok := r.Emails.Shipped.NextSendAt(); ok {
			t.Errorf("%s: shipped email waiting: %+v", name, r.Emails.Shipped)
		}
	}
}

// TestShippedEmailCarriesTheTracking: the service's shipped email names
// the carrier and tracking number and links the https tracking page, every
// value escaped; an http link is not used (the landing page is linked).
func TestShippedEmailCarriesTheTracking(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name, link, wantHref string
	}{
		{"https link", "https://track.test/p?n=1Z9&lang=en", `href="https://track.test/p?n=1Z9&amp;lang=en"`},
		{"markup in the link", `https://track.test/"><script>x</script>`, `href="https://track.test/&#34;&gt;&lt;script&gt;x&lt;/script&gt;"`},
		{"http link", "http://track.test/1Z9", `href="https://gifts.test/gift/lp"`},
		{"no link", "", `href="https://gifts.test/gift/lp"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := claimedRecipient(t, now)
			r.RenderEmails(nil)
			if r.Emails.Shipped.Subject != "" {
				t.Errorf("shipped email rendered before the shipment: %q", r.Emails.Shipped.Subject)
			}
			if err := r.Advance(gifting.RecipientShipped, now, nil); err != nil {
				t.Fatal(err)
			}
			r.SelectedGift.TrackingLink = tt.link
			r.ShipmentInfo = map[string]any{"carrier": "Fed<Ex>", "trackingNumber": "1Z9 A-1"}
			r.RenderEmails(nil)
			e := r.Emails.Shipped
			if e.Subject != "Jane, your gift is on its way" {
				t.Errorf("subject %q", e.Subject)
			}
			for _, want := range []string{tt.wantHref, "Carrier: Fed&lt;Ex&gt;", "Tracking number: 1Z9 A-1", "Spring &amp; Co"} {
				if !strings.Contains(e.HTML, want) {
					t.Errorf("html lacks %s: %s", want, e.HTML)
				}
			}
			if strings.Contains(e.HTML, "<script>") || (tt.link != "" && strings.HasPrefix(tt.link, "http:") && strings.Contains(e.HTML, tt.link)) {
				t.Errorf("html holds an unsafe link: %s", e.HTML)
			}
		})
	}
	// A template's own shipped email is used, with the same placeholders.
	r := claimedRecipient(t, now)
	r.SelectedGift.TrackingLink = "https://track.test/1"
	r.ShipmentInfo = map[string]any{"carrier": "DHL", "trackingNumber": "JD01"}
	r.RenderEmails(map[string]gifting.EmailTemplate{"shipped": {Subject: "Shipped by {{carrier}}", HTML: `<a href="{{trackingUrl}}">{{trackingNumber}}</a>`}})
	if r.Emails.Shipped.Subject != "Shipped by DHL" || r.Emails.Shipped.HTML != `<a href="https://track.test/1">JD01</a>` {
		t.Errorf("template's shipped email rendered as %q, %q", r.Emails.Shipped.Subject, r.Emails.Shipped.HTML)
	}
}

// TestPostDeliveryFollowsTheCarriersDeliveryTime: a delivered tracker
// event schedules the post-delivery email from the parcel's delivered scan
// (its template delay after it), not from the claim nor from when the
// event arrived.
func TestPostDeliveryFollowsTheCarriersDeliveryTime(t *testing.T) {
	claimed := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	shippedAt := claimed.Add(24 * time.Hour)
	scan := claimed.Add(96 * time.Hour)
	arrived := scan.Add(5 * time.Hour) // the event comes in late
	r := claimedRecipient(t, claimed)
	order := fulfilment.Order{OrderID: "o1", OrganizationID: "acme", CampaignID: "c1", RecipientID: "r1", GiftID: "g1",
		Status: fulfilment.StatusShipped, ShippedAt: &shippedAt,
		Shipments: []fulfilment.Shipment{{Carrier: "UPS", TrackingNumber: "1Z9", Status: fulfilment.StatusShipped, CreatedAt: shippedAt}}}
	cur := Stored{Recipient: r, Version: 3, Delays: map[string]int{"postDelivery": 2}}
	ship := DecideOrderMove("acme", cur, fulfilment.RecipientMove{To: gifting.RecipientShipped, At: shippedAt, ShipmentInfo: order.Info()})
	cur = ship.Recipient

	p, err := fulfilment.DecideTrackerUpdate(fulfilment.Stored{Order: order, Version: 1}, fulfilment.TrackerUpdate{
		TrackingCode: "1Z9", Carrier: "UPS", Status: "delivered", UpdatedAt: arrived,
		Details: []fulfilment.TrackingEvent{{At: shippedAt, Status: "in_transit"}, {At: scan, Status: "delivered"}},
	}, arrived)
	if err != nil {
		t.Fatal(err)
	}
	u := DecideOrderMove("acme", cur, p.Recipient)
	got := u.Recipient.Recipient
	if got.Status != gifting.RecipientDelivered {
		t.Fatalf("recipient %s after the delivered event", got.Status)
	}
	if want := gifting.FormatTime(scan.Add(2 * time.Hour)); got.Emails.PostDelivery.ScheduledTime != want {
		t.Errorf("postDelivery at %s, want %s (the delivered scan and 2 hours)", got.Emails.PostDelivery.ScheduledTime, want)
	}
	if got.ShipmentInfo["deliveredAt"] != gifting.FormatTime(scan) {
		t.Errorf("shipmentInfo.deliveredAt = %v, want the scan's time", got.ShipmentInfo["deliveredAt"])
	}
}
