package recipient_test

import (
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// The decisions of a digital gift's claim, with no storage.

func digitalState() recipient.ClaimState {
	st := claimState()
	st.Gift.Gift.Type, st.Gift.Catalog = "digital", false
	st.Recipient.Emails.PostDelivery.Active = true // the template sends one
	return st
}

var code = giftcodes.Slot{ID: "c0ffee", Key: "2027-01-01T00:00:00Z#c0ffee", Masked: "••••0001"}

func TestDecideDigitalClaim(t *testing.T) {
	t.Parallel()
	p, err := recipient.DecideDigitalClaim("acme", digitalState(), code, at)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Recipient.Recipient
	if r.Status != gifting.RecipientDelivered || p.From != gifting.RecipientInviteSent || r.Address != nil || r.ClaimedAt == nil {
		t.Errorf("recipient %s from %s, address %v, claimed %v: want delivered from invite_sent, no address, claimed", r.Status, p.From, r.Address, r.ClaimedAt)
	}
	if p.Code == nil || *p.Code != code || giftcodes.Assigned(r.ShipmentInfo) != "c0ffee" || r.ShipmentInfo["maskedCode"] != "••••0001" {
		t.Errorf("plan's code %v, shipmentInfo %v: want the code assigned, shown by id and mask", p.Code, r.ShipmentInfo)
	}
	if p.Order.Order.OrderID != "" || p.Contact != nil {
		t.Errorf("order %+v, contact %v: a digital claim opens no order and adds no address", p.Order.Order, p.Contact)
	}
	// Held 40, the gift costs 35: 5 come back.
	if p.Refund != 5 || r.CreditsCharged != 35 {
		t.Errorf("refund %d, charged %d; want 5 and 35", p.Refund, r.CreditsCharged)
	}
	if r.Emails.Reminder1.Active || !r.Emails.PostDelivery.Active || r.Emails.PostDelivery.ScheduledTime == "" {
		t.Errorf("emails %+v: want the reminder stopped and the post-delivery email scheduled", r.Emails)
	}
	st := digitalState()
	st.Recipient.Status = gifting.RecipientExpired
	if _, err := recipient.DecideDigitalClaim("acme", st, code, at); gifting.ErrorCode(err) != gifting.CodeGone {
		t.Errorf("expired recipient: %v, want GONE", err)
	}
}

// TestDigitalClaimReplay: a digital claim sent again is its first claim's
// answer (the same code), a physical one is not, nor a claim of another
// gift.
func TestDigitalClaimReplay(t *testing.T) {
	t.Parallel()
	st := digitalState()
	if st.Replay(recipient.ClaimInput{GiftID: "g1"}) {
		t.Error("an unclaimed recipient's claim replays")
	}
	p, err := recipient.DecideDigitalClaim("acme", st, code, at)
	if err != nil {
		t.Fatal(err)
	}
	st.Recipient = &p.Recipient
	for in, want := range map[string]bool{"g1": true, " g1 ": true, "": true, "g2": false} {
		if got := st.Replay(recipient.ClaimInput{GiftID: in}); got != want {
			t.Errorf("claim of %q after a digital claim of g1 replays: %v, want %v", in, got, want)
		}
	}
	phys := claimState()
	phys.OrderID = "O1"
	pp, err := recipient.DecideClaim("acme", phys, recipient.ClaimInput{GiftID: "g1", ShippingAddress: address}, at)
	if err != nil {
		t.Fatal(err)
	}
	phys.Recipient = &pp.Recipient
	if phys.Replay(recipient.ClaimInput{GiftID: "g1"}) {
		t.Error("a physical claim sent again replays; want it refused as already claimed")
	}
}

// TestValidateDigitalChoice: the choice of a digital gift needs no
// address, and an address sent along is not kept; a physical one still
// needs it.
func TestValidateDigitalChoice(t *testing.T) {
	t.Parallel()
	gifts := []gifting.Gift{{GiftID: "card", Type: "digital"}, {GiftID: "mug"}}
	in := recipient.ClaimInput{GiftID: "card", ShippingAddress: recipient.ShippingAddress{Line1: "\x00bad", Zip: "!"}}
	if err := in.Validate(gifts); err != nil {
		t.Errorf("digital choice without a valid address: %v, want none", err)
	}
	if in.ShippingAddress != (recipient.ShippingAddress{}) {
		t.Errorf("address kept %+v, want none", in.ShippingAddress)
	}
	phys := recipient.ClaimInput{GiftID: "mug"}
	if err := phys.Validate(gifts); gifting.ErrorCode(err) != gifting.CodeValidation {
		t.Errorf("physical choice without an address: %v, want VALIDATION_FAILED", err)
	}
}

// TestDigitalDeliveredEmail: a digital claim whose template has no
// post-delivery email sends the service's own at once, linking the
// landing page (where the code is) and holding no code; a template's own
// post-delivery email is kept, after its delay.
func TestDigitalDeliveredEmail(t *testing.T) {
	t.Parallel()
	st := claimState()
	st.Gift.Gift.Type = "digital"
	st.Recipient.URLs.LandingPage = "https://gifts.test/gift/acme.c1.r1.secret"
	st.Recipient.Emails.AddressConfirmation.Sent = true // the invitation went out
	p, err := recipient.DecideDigitalClaim("acme", st, code, at)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Recipient.Recipient
	e := r.Emails.PostDelivery
	if !e.Active || e.ScheduledTime != gifting.FormatTime(at) {
		t.Fatalf("post-delivery email %+v: want it active, due at the claim", e)
	}
	r.RenderEmails(map[string]gifting.EmailTemplate{"addressConfirmation": {Subject: "s", HTML: "h"}})
	e = r.Emails.PostDelivery
	if !strings.Contains(e.HTML, `href="https://gifts.test/gift/acme.c1.r1.secret"`) || !strings.Contains(e.Subject, "ready") {
		t.Errorf("delivered email %q / %q: want the landing page linked", e.Subject, e.HTML)
	}
	for _, leak := range []string{"c0ffee", "0001"} {
		if strings.Contains(e.HTML+e.Subject, leak) {
			t.Errorf("the delivered email holds %q", leak)
		}
	}
	// A template's own post-delivery email (active, sent 72 hours after a
	// delivery) goes at once, in its words when it links the landing
	// page, in the service's when it does not.
	own := digitalState()
	own.Recipient.Delays = map[string]int{"postDelivery": 72}
	own.Recipient.URLs.LandingPage = "https://gifts.test/gift/acme.c1.r1.secret"
	p, err = recipient.DecideDigitalClaim("acme", own, code, at)
	if err != nil {
		t.Fatal(err)
	}
	r = p.Recipient.Recipient
	if got := r.Emails.PostDelivery.ScheduledTime; got != gifting.FormatTime(at) {
		t.Errorf("the template's post-delivery email is due %s, want at the claim", got)
	}
	for html, want := range map[string]string{`<p><a href="{{landingPageUrl}}">Enjoy</a></p>`: "Enjoy", "<p>Your gift was delivered.</p>": "ready"} {
		rr := r
		rr.RenderEmails(map[string]gifting.EmailTemplate{"postDelivery": {Subject: "Enjoy", HTML: html}})
		if e := rr.Emails.PostDelivery; !strings.Contains(e.Subject, want) || !strings.Contains(e.HTML, "https://gifts.test/gift/acme.c1.r1.secret") {
			t.Errorf("template's post-delivery %q gave %q / %q; want %q", html, e.Subject, e.HTML, want)
		}
	}
}
