package pages_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// timelineStep is one stage of a landing page's timeline as served.
type timelineStep struct {
	html    string
	current bool
}

// steps returns the stages of the timeline of the landing page body.
func steps(t *testing.T, body string) []timelineStep {
	t.Helper()
	i := strings.Index(body, `<ol class="steps">`)
	j := strings.Index(body[max(i, 0):], "</ol>")
	if i < 0 || j < 0 {
		t.Fatalf("landing page without a timeline: %s", body)
	}
	var out []timelineStep
	for _, li := range strings.Split(body[i:i+j], "</li>") {
		if k := strings.Index(li, "<li "); k >= 0 {
			out = append(out, timelineStep{html: li[k:], current: strings.Contains(li, `aria-current="step"`)})
		}
	}
	return out
}

// wantEnded checks a timeline that ends early: the stages labels, the
// last current (saying "now") with the texts of want, the others "done";
// and no stage of a gift on its way ("being prepared") is left.
func wantEnded(t *testing.T, body string, labels []string, want ...string) {
	t.Helper()
	got := steps(t, body)
	if len(got) != len(labels) {
		t.Fatalf("%d stages, want %v: %s", len(got), labels, body)
	}
	for i, label := range labels {
		last := i == len(labels)-1
		state := map[bool]string{true: "now", false: "done"}[last]
		if !strings.Contains(got[i].html, `<span class="step-label">`+label+`</span>`) ||
			!strings.Contains(got[i].html, `<span class="step-state">`+state+`</span>`) || got[i].current != last {
			t.Errorf("stage %d: want %s, %s (current %v): %s", i+1, label, state, last, got[i].html)
		}
	}
	for _, w := range want {
		if !strings.Contains(got[len(got)-1].html, w) {
			t.Errorf("stage %s lacks %q", labels[len(labels)-1], w)
		}
	}
	if strings.Contains(body, "being prepared") {
		t.Error("the page of a gift that will not come says it is being prepared")
	}
}

// wantTimeline checks that the page's timeline has its four stages, the
// one named current the only one marked aria-current="step" and saying
// "now", the ones before it "done", the ones after "not yet", and each
// stage holding the texts of want.
func wantTimeline(t *testing.T, body, current string, want map[string][]string) {
	t.Helper()
	got := steps(t, body)
	labels := []string{"Confirmed", "Shipped", "In transit", "Delivered"}
	if len(got) != len(labels) {
		t.Fatalf("%d stages, want %d: %s", len(got), len(labels), body)
	}
	seen := false
	for i, label := range labels {
		s := got[i]
		state := "done"
		switch {
		case label == current:
			state, seen = "now", true
		case seen:
			state = "not yet"
		}
		if !strings.Contains(s.html, `<span class="step-label">`+label+`</span>`) || !strings.Contains(s.html, `<span class="step-state">`+state+`</span>`) ||
			s.current != (label == current) {
			t.Errorf("stage %d: want %s, %s (current %v): %s", i+1, label, state, label == current, s.html)
		}
		for _, w := range want[label] {
			if !strings.Contains(s.html, w) {
				t.Errorf("stage %s lacks %q: %s", label, w, s.html)
			}
		}
	}
}

// track applies a carrier's tracker event to the order, as EasyPost's
// webhook does: decided by shared/fulfilment, committed with the
// recipient's move in one transaction.
func (f *fixture) track(t *testing.T, orderID, status string, at time.Time, eta *time.Time) {
	t.Helper()
	ctx := context.Background()
	so, err := f.s.Order(ctx, f.orgID, orderID)
	if err != nil {
		t.Fatal(err)
	}
	s := so.Shipment()
	p, err := fulfilment.DecideTrackerUpdate(so, fulfilment.TrackerUpdate{TrackingCode: s.TrackingNumber, Carrier: s.Carrier,
		Status: status, UpdatedAt: at, EstDeliveryAt: eta, Details: []fulfilment.TrackingEvent{{At: at, Status: status}}}, at)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := f.s.LoadRecipient(ctx, f.orgID, so.CampaignID, so.RecipientID)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.s.CommitTracking(ctx, p, recipient.DecideOrderMove(f.orgID, rc, p.Recipient)); err != nil {
		t.Fatal(err)
	}
}

// TestLandingTimeline: the landing page's timeline follows the gift from
// the claim to the door: confirmed, shipped with the carrier, tracking
// number and tracking link, in transit with the estimated delivery,
// delivered with the "It arrived" and feedback forms.
func TestLandingTimeline(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	landing := "/gift/" + r.LandingPageID
	page := func() string {
		t.Helper()
		res := f.do(t, "GET", landing, nil)
		if res.status != http.StatusOK {
			t.Fatalf("landing: %d %s", res.status, res.body)
		}
		return res.body
	}
	testenv.Claim(t, f.s, f.orgID, f.campaign, r.RecipientID)
	wantTimeline(t, page(), "Confirmed", map[string][]string{"Confirmed": {"Your gift is being prepared."}})

	orderID, _ := f.recipient(t, r.RecipientID).ShipmentInfo["orderId"].(string)
	if _, _, err := testenv.Recipients(f.s).Ship(ctx, f.orgID, orderID, fulfilment.ShipmentInput{Carrier: "UPS",
		TrackingNumber: "1Z999AA10123456784", TrackingURL: "https://www.ups.com/track?tracknum=1Z999AA10123456784&loc=en_US"}); err != nil {
		t.Fatal(err)
	}
	body := page()
	wantTimeline(t, body, "Shipped", map[string][]string{
		"Confirmed": {"Your address is confirmed."},
		"Shipped": {"With UPS, tracking number 1Z999AA10123456784.", day(time.Now()),
			`href="https://www.ups.com/track?tracknum=1Z999AA10123456784&amp;loc=en_US"`, "Track your parcel on the UPS website"},
	})
	if strings.Contains(body, "It arrived") || strings.Contains(body, "How do you like it?") {
		t.Error("the shipped page shows the forms of a delivered gift")
	}

	now := time.Now().UTC()
	eta := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, 3)
	f.track(t, orderID, "in_transit", now, &eta)
	wantTimeline(t, page(), "In transit", map[string][]string{"In transit": {"Estimated delivery: " + day(eta) + "."}})

	f.track(t, orderID, "delivered", now.Add(time.Second), &eta)
	body = page()
	wantTimeline(t, body, "Delivered", map[string][]string{"Delivered": {day(now)}})
	for _, want := range []string{"It arrived", "How do you like it?"} {
		if !strings.Contains(body, want) {
			t.Errorf("delivered page lacks %q", want)
		}
	}
	if strings.Contains(body, "Estimated delivery") {
		t.Error("the delivered page still shows the estimated delivery")
	}
	if got := f.recipient(t, r.RecipientID); got.Status != gifting.RecipientDelivered {
		t.Errorf("recipient %s after the delivered event", got.Status)
	}
}

// TestLandingTimelineLinksHTTPSOnly: a tracking link recorded over http is
// not linked from the page (the carrier and number still show).
func TestLandingTimelineLinksHTTPSOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	testenv.Claim(t, f.s, f.orgID, f.campaign, r.RecipientID)
	orderID, _ := f.recipient(t, r.RecipientID).ShipmentInfo["orderId"].(string)
	if _, _, err := testenv.Recipients(f.s).Ship(context.Background(), f.orgID, orderID, fulfilment.ShipmentInput{Carrier: "Local <Courier>",
		TrackingNumber: "LC-77", TrackingURL: "http://courier.test/LC-77"}); err != nil {
		t.Fatal(err)
	}
	body := f.do(t, "GET", "/gift/"+r.LandingPageID, nil).body
	wantTimeline(t, body, "Shipped", map[string][]string{"Shipped": {"With Local &lt;Courier&gt;, tracking number LC-77."}})
	if strings.Contains(body, "courier.test") || strings.Contains(body, "Track your parcel") {
		t.Errorf("the http tracking link is on the page: %s", body)
	}
}

// day is a date as the timeline shows it.
func day(t time.Time) string { return t.UTC().Format("Monday 2 January 2006") }

// TestLandingTimelineOfAGiftThatWillNotCome: a recipient whose order the
// sender cancelled reads that it was cancelled, not that it is being
// prepared; one whose parcel the carrier returned reads that it was not
// delivered, after the stages it did reach.
func TestLandingTimelineOfAGiftThatWillNotCome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newFixture(t, nil)
	orderOf := func(r recipient.Recipient) string {
		id, _ := f.recipient(t, r.RecipientID).ShipmentInfo["orderId"].(string)
		return id
	}

	cancelled := f.add(t, "cancelled@example.com")
	testenv.Claim(t, f.s, f.orgID, f.campaign, cancelled.RecipientID)
	if _, _, err := testenv.Recipients(f.s).CancelOrder(ctx, f.orgID, orderOf(cancelled), "the team changed its plans"); err != nil {
		t.Fatal(err)
	}
	body := f.do(t, "GET", "/gift/"+cancelled.LandingPageID, nil).body
	wantEnded(t, body, []string{"Confirmed", "Cancelled"}, "The sender cancelled this gift", day(time.Now()))
	if !strings.Contains(body, "this gift was cancelled</h1>") || strings.Contains(body, "on its way</h1>") {
		t.Error("the cancelled gift's page is not headed as cancelled")
	}
	if strings.Contains(body, "the team changed its plans") {
		t.Error("the sender's own reason for cancelling is on the recipient's page")
	}

	returned := f.add(t, "returned@example.com")
	testenv.Claim(t, f.s, f.orgID, f.campaign, returned.RecipientID)
	orderID := orderOf(returned)
	if _, _, err := testenv.Recipients(f.s).Ship(ctx, f.orgID, orderID, fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: "1Z999AA10123456799"}); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	f.track(t, orderID, "in_transit", now, nil)
	f.track(t, orderID, "return_to_sender", now.Add(time.Second), nil)
	body = f.do(t, "GET", "/gift/"+returned.LandingPageID, nil).body
	wantEnded(t, body, []string{"Confirmed", "Shipped", "In transit", "Not delivered"}, "could not deliver your parcel")
	if !strings.Contains(body, "your gift could not be delivered</h1>") {
		t.Error("the returned gift's page is not headed as undelivered")
	}
}
