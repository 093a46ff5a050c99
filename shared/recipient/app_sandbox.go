package recipient

import (
	"context"
	"errors"
	"fmt"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// The sandbox's walk of a recipient (Advance): the steps a recipient goes
// through after its invitation, in order, each taken by the code the live
// path runs for it.
var advanceSteps = []gifting.RecipientStatus{
	gifting.RecipientAddressConfirmed, // the claim page's claim
	gifting.RecipientShipped,          // the fulfiller's shipment
	gifting.RecipientInTransit,        // the carrier's tracker
	gifting.RecipientDelivered,        // the carrier's tracker
}

// SandboxAddress is where a sandbox's advanced recipient "ships" its gift.
var SandboxAddress = ShippingAddress{Line1: "1 Sandbox Way", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}

// SandboxCarrier is the carrier of a sandbox's shipments; their tracking
// number is "SBX" and the recipient's id.
const SandboxCarrier = "Sandbox Post"

// advanceRank is how far along the walk st is: 0 before the claim, i+1
// once advanceSteps[i] is reached; -1 for a recipient off the walk
// (expired, declined, acknowledged).
func advanceRank(st gifting.RecipientStatus) int {
	switch st {
	case gifting.RecipientPending, gifting.RecipientInviteSent:
		return 0
	case gifting.RecipientAddressConfirmed, gifting.RecipientProcessing:
		return 1
	case gifting.RecipientShipped:
		return 2
	case gifting.RecipientInTransit:
		return 3
	case gifting.RecipientDelivered:
		return 4
	}
	return -1
}

// CheckAdvance refuses a walk of a recipient at from to to that cannot
// happen: to is not a step of the walk (VALIDATION_FAILED naming
// "status"), or the recipient is at or past it, or off the walk
// (CONFLICT).
func CheckAdvance(from, to gifting.RecipientStatus) error {
	target := -1
	for i, s := range advanceSteps {
		if s == to {
			target = i + 1
		}
	}
	if target < 0 {
		var p gifting.Problems
		p.Add("status", "must be one of address_confirmed, shipped, in_transit, delivered")
		return p.Err()
	}
	at := advanceRank(from)
	if at < 0 || at >= target {
		return gifting.Errorf(gifting.CodeConflict, "the recipient is %s: it cannot be advanced to %s", from, to)
	}
	return nil
}

// Advance walks a sandbox's recipient from where it is to status, one
// step after the other, each through the live path's own use case: the
// claim (Claim, as the claim page: the campaign's first gift, its first
// option in stock, to SandboxAddress), the shipment (Ship, as the fulfiller's API call) and
// the carrier's events (Track, as EasyPost's tracker webhook). So their
// side effects are the live ones: the refund of what the gift costs less,
// the status history, the emails (captured: the sandbox's mailer) and the
// webhooks. Errors: NOT_FOUND, VALIDATION_FAILED and CONFLICT
// (CheckAdvance; a digital gift ships nothing), and the use cases' own.
func (a *App) Advance(ctx context.Context, orgID, campaignID, recipientID string, to gifting.RecipientStatus) (Recipient, error) {
	r, err := a.Get(ctx, orgID, campaignID, recipientID)
	if err != nil {
		return Recipient{}, err
	}
	if err := CheckAdvance(r.Status, to); err != nil {
		return Recipient{}, err
	}
	for _, step := range advanceSteps[advanceRank(r.Status):] {
		if err := a.advanceStep(ctx, orgID, r, step); err != nil {
			return Recipient{}, err
		}
		if r, err = a.Get(ctx, orgID, campaignID, recipientID); err != nil {
			return Recipient{}, err
		}
		if step == to {
			break
		}
	}
	return r, nil
}

// advanceStep takes one step of the walk of r.
func (a *App) advanceStep(ctx context.Context, orgID string, r Recipient, step gifting.RecipientStatus) error {
	if step == gifting.RecipientAddressConfirmed {
		c, err := a.store.RecipientCampaign(ctx, orgID, r.CampaignID)
		if errors.Is(err, ErrNoCampaign) {
			return gifting.NotFound("campaign", r.CampaignID)
		}
		if err != nil {
			return err
		}
		if len(c.GiftIDs) == 0 {
			return gifting.Errorf(gifting.CodeConflict, "the campaign offers no gift to claim")
		}
		in := ClaimInput{GiftID: c.GiftIDs[0], ShippingAddress: SandboxAddress}
		if in.VariantID, err = a.sandboxVariant(ctx, orgID, r, in.GiftID); err != nil {
			return err
		}
		_, err = a.Claim(ctx, orgID, r.CampaignID, r.RecipientID, in)
		return err
	}
	orderID, _ := r.ShipmentInfo["orderId"].(string)
	if orderID == "" {
		return gifting.Errorf(gifting.CodeConflict, "the recipient's gift is not shipped (a digital gift, or none claimed)")
	}
	number := "SBX" + r.RecipientID
	if step == gifting.RecipientShipped {
		_, _, err := a.Ship(ctx, orgID, orderID, fulfilment.ShipmentInput{Carrier: SandboxCarrier, TrackingNumber: number})
		return err
	}
	tracker := "in_transit"
	if step == gifting.RecipientDelivered {
		tracker = "delivered"
	}
	now := a.store.Now()
	_, err := a.Track(ctx, orgID, fulfilment.TrackerUpdate{EventID: fmt.Sprintf("sandbox-%s-%s", r.RecipientID, tracker),
		TrackingCode: number, Carrier: SandboxCarrier, Status: tracker, UpdatedAt: now,
		Details: []fulfilment.TrackingEvent{{Status: tracker, Message: "sandbox: " + tracker, At: now}}})
	return err
}

// sandboxVariant is the option of gift giftID a sandbox's claim chooses:
// its first in stock (its first when none is: the claim then answers out
// of stock), "" for a gift without options.
func (a *App) sandboxVariant(ctx context.Context, orgID string, r Recipient, giftID string) (string, error) {
	st, err := a.store.LoadClaim(ctx, orgID, r.CampaignID, r.RecipientID, giftID)
	if err != nil || len(st.Gift.Gift.Variants) == 0 {
		return "", err
	}
	g := st.Gift.Gift
	for _, v := range g.Variants {
		if g.VariantStock[v.VariantID].Available > 0 {
			return v.VariantID, nil
		}
	}
	return g.Variants[0].VariantID, nil
}
