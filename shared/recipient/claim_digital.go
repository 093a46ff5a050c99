package recipient

import (
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
)

// The claim of a digital gift (docs/digital-gifts.md): no address, no
// order; one of the gift's codes is assigned to the recipient in the
// claim's own transaction, and the recipient is delivered at once.

// CodesGone is the CONFLICT of a digital gift whose codes were all handed
// out (or expired) before this claim could take one.
func CodesGone() error {
	return &gifting.Error{Code: gifting.CodeConflict, Message: "the gift you chose is no longer available; choose another",
		Details: map[string]string{"giftId": "is no longer available"}}
}

// Replay reports whether the claim in is one st's recipient has made
// already, of a digital gift: a claim sent again after its answer was
// lost. Its answer is the recipient as claimed, holding the code it was
// given then; it never takes a second one. (A physical claim sent again is
// ErrAlreadyClaimed, as its address may differ.)
func (st ClaimState) Replay(in ClaimInput) bool {
	return st.Recipient != nil && st.Recipient.replays(in)
}

// replays reports whether claim in repeats r's claim of a digital gift.
func (r *Recipient) replays(in ClaimInput) bool {
	if !r.Claimed() || giftcodes.Assigned(r.ShipmentInfo) == "" {
		return false
	}
	id := strings.TrimSpace(in.GiftID)
	return id == "" || id == r.SelectedGift.GiftID
}

// DecideDigitalClaim plans the claim of st's recipient of orgID (Check
// passed; the gift is digital) at now, taking code: the recipient chooses
// the gift with no address (Recipient.Claim: GONE when it expired,
// CONFLICT when claimed) and moves straight to delivered, which schedules
// its post-delivery email; its shipmentInfo names the code by id and mask
// (giftcodes.Delivery); what the gift costs less than the credits held
// comes back (ClaimRefund). The code's assignment is the plan's Code.
func DecideDigitalClaim(orgID string, st ClaimState, code giftcodes.Slot, now time.Time) (ClaimPlan, error) {
	cur := *st.Recipient
	r := cur.Recipient
	from := r.Status
	if err := r.Claim(st.Gift.Gift, ShippingAddress{}, now); err != nil {
		return ClaimPlan{}, err
	}
	r.Address = nil // nothing ships
	refund := ClaimRefund(r.CreditsCharged, st.Gift.Gift)
	r.CreditsCharged -= refund
	if err := r.Advance(gifting.RecipientDelivered, now, cur.Delays); err != nil {
		return ClaimPlan{}, err
	}
	r.ShipmentInfo = giftcodes.Delivery(code)
	r.activateDelivered(now)
	c := code
	return ClaimPlan{OrgID: orgID, Before: cur.Version, Recipient: cur.Next(r), From: from, Gift: *st.Gift,
		Refund: refund, Message: statusChanged(r, from), Code: &c}, nil
}

// DeliveredEmail is the post-delivery email of a digital gift whose
// template has none that links the landing page: the gift is ready, and
// its page (which shows the code) is linked. Its text never holds the
// code: an email is read on many devices, forwarded and archived; only an
// organization that opted in has the code added under it (CodeInEmail).
var DeliveredEmail = gifting.EmailTemplate{
	Subject: "{{firstName}}, your gift is ready",
	HTML: `<p>Hi {{firstName}},</p>` +
		`<p>Your gift from {{campaignName}} is ready.</p>` +
		`<p><a href="{{landingPageUrl}}">See your gift and its code</a></p>` +
		`<p>That page shows your code: please do not share its address.</p>`,
}

// activateDelivered has the recipient of a digital gift sent its
// delivered email at now: the post-delivery email, due at once rather than
// after its template's delay (the gift is there the moment it is claimed;
// RenderEmails gives it the service's words, DeliveredEmail, unless the
// template's own links the landing page). A recipient that gets no email
// at all (none was sent or is active: its reminders stopped with the
// claim) gets none now either.
func (r *Recipient) activateDelivered(now time.Time) {
	e := &r.Emails.PostDelivery
	if e.Sent || e.Failure != "" {
		return
	}
	if e.Active {
		e.ScheduledTime = gifting.FormatTime(now)
		return
	}
	for _, k := range gifting.EmailKinds {
		if k := r.Emails.Kind(k); k.Active || k.Sent {
			e.Active, e.ScheduledTime = true, gifting.FormatTime(now)
			return
		}
	}
}

// digitalDeliveredEmail is the post-delivery email of a digital gift's
// recipient given its template's own, t (ok false: none): the template's
// when it links the landing page (where the code is), else the service's
// DeliveredEmail, so the email always leads to the code.
func digitalDeliveredEmail(t gifting.EmailTemplate, ok bool) gifting.EmailTemplate {
	if ok && strings.Contains(t.HTML, "{{landingPageUrl}}") {
		return t
	}
	return DeliveredEmail
}
