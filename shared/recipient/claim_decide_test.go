package recipient_test

import (
	"errors"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
)

// The decisions of a claim and an expiry, with no storage.

// invited is a stored recipient of campaign C1, invited, holding 40
// credits, its claim period ending a day after at.
func invited() recipient.Stored {
	exp := at.Add(24 * time.Hour)
	r := recipient.Recipient{RecipientID: "R1", CampaignID: "C1", OrganizationID: "acme", Status: gifting.RecipientInviteSent,
		CreditsCharged: 40, ClaimExpiresAt: &exp, ContactDetails: recipient.ContactDetails{ContactID: "k1"},
		Emails: recipient.Emails{Reminder1: recipient.EmailSchedule{Active: true, ScheduledTime: gifting.FormatTime(at.Add(time.Hour))}}}
	return recipient.Stored{Recipient: r, Version: 3}
}

func claimState() recipient.ClaimState {
	cur := invited()
	c := liveCampaign(40)
	return recipient.ClaimState{Recipient: &cur, Campaign: &c,
		Gift: &recipient.FoundGift{Gift: gifting.Gift{GiftID: "g1", Price: 35, Inventory: gifting.Inventory{Available: 1}}, Catalog: true}}
}

var address = recipient.ShippingAddress{Line1: "1 Main Street", City: "Springfield", Zip: "62701", Country: "US"}

func TestClaimCheck(t *testing.T) {
	t.Parallel()
	in := recipient.ClaimInput{GiftID: "g1", ShippingAddress: address}
	for _, tt := range []struct {
		name   string
		change func(*recipient.ClaimState)
		code   gifting.Code
		msg    string
	}{
		{"claimable", func(*recipient.ClaimState) {}, "", ""},
		{"no recipient", func(st *recipient.ClaimState) { st.Recipient = nil }, gifting.CodeNotFound, `recipient "R1" was not found`},
		{"claimed", func(st *recipient.ClaimState) { st.Recipient.ClaimedAt = &at }, gifting.CodeConflict,
			"this gift has already been claimed: the address was confirmed"},
		{"campaign completed", func(st *recipient.ClaimState) { st.Campaign.Completed = true }, gifting.CodeGone,
			"this campaign has ended, so its gifts can no longer be claimed"},
		{"campaign deleted", func(st *recipient.ClaimState) { st.Campaign.Deleted = true }, gifting.CodeGone,
			"this campaign has ended, so its gifts can no longer be claimed"},
		{"not its gift", func(st *recipient.ClaimState) { st.Campaign.GiftIDs = []string{"g2"} }, gifting.CodeValidation,
			"choose one of the campaign's gifts"},
		{"out of stock", func(st *recipient.ClaimState) { st.Gift.Gift.Inventory.Available = 0 }, gifting.CodeConflict,
			"the gift you chose is out of stock; choose another"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := claimState()
			tt.change(&st)
			err := st.Check("R1", in)
			if tt.code == "" {
				if err != nil {
					t.Errorf("Check = %v; want none", err)
				}
				return
			}
			wantError(t, err, tt.code, tt.msg)
		})
	}
}

// TestDecideClaim: a claim confirms the address at the version read and
// opens its order, so the recipient is stored processing (decision 0009)
// with shipmentInfo naming the order; it gives back what the gift costs
// less than it held, and adds the address to its contact only when the
// contact is live.
func TestDecideClaim(t *testing.T) {
	t.Parallel()
	in := recipient.ClaimInput{GiftID: "g1", ShippingAddress: address}
	st := claimState()
	st.Contact = &contact.Contact{ContactID: "k1"}
	st.OrderID = "O1"
	p, err := recipient.DecideClaim("acme", st, in, at)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Recipient
	if p.Before != 3 || r.Version != 4 || r.Status != gifting.RecipientProcessing || p.From != gifting.RecipientInviteSent ||
		r.ClaimedAt == nil || r.Address == nil || *r.Address != address || r.SelectedGift.GiftID != "g1" || r.Emails.Reminder1.Active {
		t.Errorf("claimed recipient %+v (version %d from %d); want processing, its reminder stopped", r.Recipient, r.Version, p.Before)
	}
	o := p.Order.Order
	if o.OrderID != "O1" || o.Status != "open" || o.RecipientID != "R1" || o.Credits != 35 || o.ShipTo.Line1 != address.Line1 ||
		r.ShipmentInfo["orderId"] != "O1" || p.Order.Stock.Kind != "reserve" || len(p.Order.Messages) != 1 {
		t.Errorf("order %+v, stock %+v, shipmentInfo %v; want order O1 open with one unit reserved", o, p.Order.Stock, r.ShipmentInfo)
	}
	if p.Refund != 5 || r.CreditsCharged != 35 || !p.Gift.Catalog {
		t.Errorf("refund %d, charged %d; want 5 back, 35 charged", p.Refund, r.CreditsCharged)
	}
	c := p.RefundChange()
	if c.Type != wallet.Refund || c.Delta != 5 || c.OrgID != "acme" || c.RecipientID != "R1" ||
		c.Reason != "the recipient chose a gift that costs less than the credits held for it" {
		t.Errorf("refund change %+v", c)
	}
	if p.Address.Address.Line1 != "1 Main Street" || p.Address.Source.Type != recipient.ClaimSource || p.Message.Type != gifting.ChangeRecipientStatus {
		t.Errorf("address entry %+v, message %s", p.Address, p.Message.Type)
	}

	st.Contact = nil
	st.Gift.Gift.Price = 50
	if p, err := recipient.DecideClaim("acme", st, in, at); err != nil || p.Refund != 0 || p.Recipient.CreditsCharged != 40 || p.Contact != nil {
		t.Errorf("a dearer gift, no contact: refund %d, charged %d, contact %v, %v; want nothing back", p.Refund, p.Recipient.CreditsCharged, p.Contact, err)
	}
	st.Recipient.Status = gifting.RecipientExpired
	_, err = recipient.DecideClaim("acme", st, in, at)
	wantError(t, err, gifting.CodeGone, "this gift has expired: it was not claimed in time, so it can no longer be claimed")
}

// TestDecideExpiry: an unclaimed recipient expires with all it held back,
// the ledger's reason saying why; the scheduler's expiry waits for the
// claim period's end; a claimed or expired recipient is nothing to do.
func TestDecideExpiry(t *testing.T) {
	t.Parallel()
	later := at.Add(25 * time.Hour)
	for _, tt := range []struct {
		name    string
		cur     func() recipient.Stored
		onlyDue bool
		now     time.Time
		ok      bool
		reason  string
	}{
		{"the campaign ended", invited, false, at, true, "the campaign ended before the recipient claimed its gift"},
		{"the claim period is over", invited, true, later, true, "the recipient did not claim its gift in time"},
		{"the claim period runs", invited, true, at, false, ""},
		{"claimed", func() recipient.Stored { s := invited(); s.ClaimedAt = &at; return s }, false, later, false, ""},
		{"expired", func() recipient.Stored { s := invited(); s.Status = gifting.RecipientExpired; return s }, false, later, false, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, ok, err := recipient.DecideExpiry("acme", tt.cur(), tt.onlyDue, tt.now)
			if err != nil || ok != tt.ok {
				t.Fatalf("DecideExpiry = %v, %v; want %v", ok, err, tt.ok)
			}
			if !ok {
				return
			}
			r := p.Recipient
			if r.Status != gifting.RecipientExpired || r.CreditsCharged != 0 || p.Refund != 40 || p.Before != 3 || r.Version != 4 ||
				p.From != gifting.RecipientInviteSent || r.Emails.Reminder1.Failure != recipient.EmailExpired {
				t.Errorf("expiry %+v; want expired, 40 back, its reminder stopped", p)
			}
			if c := p.RefundChange(); c.Reason != tt.reason || c.Delta != 40 || c.Type != wallet.Refund {
				t.Errorf("refund %+v; want 40 back because %s", c, tt.reason)
			}
		})
	}
}

// TestDecideUpdates: each change of a recipient says what else its
// transaction writes: the campaign's counters for a move, the feedback
// counted once, the record of a sent message, nothing for a claim another
// sender took over.
func TestDecideUpdates(t *testing.T) {
	t.Parallel()
	cur := invited()
	if _, err := recipient.DecideMove("acme", cur, gifting.RecipientShipped, at); gifting.ErrorCode(err) != gifting.CodeConflict {
		t.Errorf("shipping an unclaimed recipient: %v; want CONFLICT", err)
	}
	claimed := invited()
	claimed.ClaimedAt, claimed.Status = &at, gifting.RecipientAddressConfirmed
	u, err := recipient.DecideMove("acme", claimed, gifting.RecipientShipped, at)
	if err != nil || u.Campaign != recipient.CampaignStatusMove || u.From != gifting.RecipientAddressConfirmed || u.Before != 3 ||
		u.Recipient.Status != gifting.RecipientShipped || u.Message == nil || u.Message.Type != gifting.ChangeRecipientStatus {
		t.Errorf("move %+v, %v; want a status move with its message", u, err)
	}

	u, err = recipient.DecideFeedback("acme", cur, "like", nil, at)
	if err != nil || u.Campaign != recipient.CampaignFeedbackCount || u.Message.Type != gifting.ChangeRecipientFeedback {
		t.Errorf("first feedback %+v, %v; want it counted", u, err)
	}
	if u, err = recipient.DecideFeedback("acme", u.Recipient, "dislike", nil, at); err != nil || u.Campaign != recipient.CampaignExists {
		t.Errorf("second feedback %+v, %v; want the campaign checked only", u, err)
	}

	pending := invited()
	pending.Status = gifting.RecipientPending
	pending.Emails.AddressConfirmation = recipient.EmailSchedule{Active: true, ScheduledTime: gifting.FormatTime(at), ClaimedAt: &at}
	u = recipient.DecideEmailSent("acme", pending, "addressConfirmation", "m-1", at)
	if u.Campaign != recipient.CampaignStatusMove || u.From != gifting.RecipientPending || u.Recipient.Status != gifting.RecipientInviteSent ||
		u.Sent == nil || u.Sent.MessageID != "m-1" || u.Alone() {
		t.Errorf("sent invitation %+v; want invite_sent counted, its message recorded", u)
	}
	if u := recipient.DecideEmailSent("acme", cur, "reminder1", "", at); !u.Alone() {
		t.Errorf("a reminder sent with no message id: %+v; want the recipient alone", u)
	}
	if _, ok := recipient.DecideEmailFailed("acme", pending, "addressConfirmation", "", at.Add(time.Second), at); ok {
		t.Error("a failure recorded on a claim another sender holds")
	}

	lapsed := pending
	lapsed.Emails.AddressConfirmation.Attempts = recipient.MaxEmailAttempts - 1
	u, err = recipient.DecideClaimEmail("acme", lapsed, "addressConfirmation", at.Add(recipient.EmailLease))
	if !errors.Is(err, recipient.ErrEmailGivenUp) || u.Recipient.Emails.AddressConfirmation.Failure != recipient.EmailAttemptsExhausted {
		t.Errorf("last lapsed lease: %+v, %v; want the failure written and ErrEmailGivenUp", u.Recipient.Emails.AddressConfirmation, err)
	}
}
