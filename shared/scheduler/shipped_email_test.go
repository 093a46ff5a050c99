package scheduler_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// shippedSubject is the subject of the service's shipped email to Jane.
const shippedSubject = "Jane, your gift is on its way"

// ship records the shipment of name's order through the use case behind
// POST /orders/{id}/shipments.
func (e *mailEnv) ship(campaignID, recipientID string, in fulfilment.ShipmentInput) {
	e.t.Helper()
	r := e.recipient(campaignID, recipientID)
	orderID, _ := r.ShipmentInfo["orderId"].(string)
	if _, _, err := e.svc.Recipients().Ship(context.Background(), e.orgID, orderID, in); err != nil {
		e.t.Fatalf("ship: %v", err)
	}
}

// claimed adds name to a live campaign (its invitation goes out at once)
// and claims its gift, which opens its order; it returns the campaign and
// the recipient's id.
func (e *mailEnv) claimed(name string) (campaign.Campaign, recipient.AddResult) {
	e.t.Helper()
	c := e.campaign(campaign.Live)
	res := e.add(c, name)
	testenv.Claim(e.t, e.store, e.orgID, c.CampaignID, res.Response.RecipientID)
	return c, res
}

// TestShippedEmailGoesOutOnceWithTheTracking: recording the shipment sends
// the shipped email at the next tick, with the carrier, the tracking
// number and the tracking link in both its parts (escaped in the HTML);
// the same shipment recorded again, and the later moves, send nothing
// more. Read back from the SES emulator.
func TestShippedEmailGoesOutOnceWithTheTracking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	c, jane := e.claimed("jane")
	id := jane.Response.RecipientID
	e.clock.Advance(30 * time.Hour) // the warehouse ships a day later
	in := fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: "1Z999AA10123456784",
		TrackingURL: "https://www.ups.com/track?tracknum=1Z999AA10123456784&loc=en_US"}
	shippedAt := e.clock.Now()
	e.ship(c.CampaignID, id, in)
	e.ship(c.CampaignID, id, in) // the same shipment again (a retried request): a replay
	e.tick()
	e.ship(c.CampaignID, id, in) // and again once the email went out (a CSV sent twice)
	e.tick()
	e.wantSubjects("jane", invitation, shippedSubject)

	m := e.received("jane")[1]
	for part, body := range map[string]string{"html": m.Body.HTML, "text": m.Body.Text} {
		for _, want := range []string{"UPS", "1Z999AA10123456784"} {
			if !strings.Contains(body, want) {
				t.Errorf("%s part lacks %s:\n%s", part, want, body)
			}
		}
	}
	if !strings.Contains(m.Body.HTML, `href="https://www.ups.com/track?tracknum=1Z999AA10123456784&amp;loc=en_US"`) {
		t.Errorf("html part lacks the escaped tracking link:\n%s", m.Body.HTML)
	}
	if !strings.Contains(m.Body.Text, "https://www.ups.com/track?tracknum=1Z999AA10123456784&loc=en_US") {
		t.Errorf("text part lacks the tracking link:\n%s", m.Body.Text)
	}
	r := e.recipient(c.CampaignID, id)
	if s := r.Emails.Shipped; !s.Sent || s.MessageID != m.MessageID || s.ScheduledTime != gifting.FormatTime(shippedAt) {
		t.Errorf("shipped entry %+v, want sent as the emulator's %s, scheduled at the shipment", s, m.MessageID)
	}

	// In transit, then a later tick: nothing more but the post-delivery
	// email once delivered.
	if _, err := e.svc.Recipients().Move(ctx, e.orgID, c.CampaignID, id, gifting.RecipientInTransit); err != nil {
		t.Fatal(err)
	}
	e.tick()
	if _, err := e.svc.Recipients().Move(ctx, e.orgID, c.CampaignID, id, gifting.RecipientDelivered); err != nil {
		t.Fatal(err)
	}
	e.tick()
	e.wantSubjects("jane", invitation, shippedSubject, delivered)
}

// TestShippedEmailWithoutAnHTTPSLink: a shipment recorded with an http
// tracking link sends the shipped email with the carrier and number, and
// links the landing page instead of the http page.
func TestShippedEmailWithoutAnHTTPSLink(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c, jane := e.claimed("jane")
	id := jane.Response.RecipientID
	e.ship(c.CampaignID, id, fulfilment.ShipmentInput{Carrier: "Local Courier", TrackingNumber: "LC-77", TrackingURL: "http://courier.test/LC-77"})
	e.tick()
	e.wantSubjects("jane", invitation, shippedSubject)
	m := e.received("jane")[1]
	if strings.Contains(m.Body.HTML, "http://courier.test") || strings.Contains(m.Body.Text, "http://courier.test") {
		t.Errorf("the http tracking link is in the email:\n%s", m.Body.HTML)
	}
	if !strings.Contains(m.Body.HTML, `href="`+jane.Response.LandingPageURL+`"`) || !strings.Contains(m.Body.Text, "LC-77") {
		t.Errorf("email lacks the landing page link or the tracking number:\n%s\n%s", m.Body.HTML, m.Body.Text)
	}
}

// TestPostDeliveryCountsFromTheDelivery: the post-delivery email is
// scheduled when the recipient is delivered, days after its claim and
// shipment, and goes out then, not from the claim.
func TestPostDeliveryCountsFromTheDelivery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	c, jane := e.claimed("jane")
	id := jane.Response.RecipientID
	e.ship(c.CampaignID, id, fulfilment.ShipmentInput{Carrier: "UPS", TrackingNumber: "1Z5"})
	e.tick()
	e.clock.Advance(5 * 24 * time.Hour)
	e.tick()
	e.wantSubjects("jane", invitation, shippedSubject) // nothing before the delivery
	deliveredAt := e.clock.Now()
	if _, err := e.svc.Recipients().Move(ctx, e.orgID, c.CampaignID, id, gifting.RecipientDelivered); err != nil {
		t.Fatal(err)
	}
	if got := e.recipient(c.CampaignID, id).Emails.PostDelivery.ScheduledTime; got != gifting.FormatTime(deliveredAt) {
		t.Errorf("postDelivery scheduled at %s, want the delivery, %s (the template sends it at once)", got, gifting.FormatTime(deliveredAt))
	}
	e.tick()
	e.wantSubjects("jane", invitation, shippedSubject, delivered)
}
