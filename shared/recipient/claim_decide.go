package recipient

import (
	"context"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// ClaimStore is what a claim and an expiry need of storage.
type ClaimStore interface {
	// LoadClaim reads, in one request, the recipient, its campaign and the
	// gift of that id (the organization's own, else the catalog's).
	LoadClaim(ctx context.Context, orgID, campaignID, recipientID, giftID string) (ClaimState, error)
	// LiveContact reads a contact, nil when it is gone.
	LiveContact(ctx context.Context, orgID, contactID string) (*contact.Contact, error)
	// CommitClaim writes p in one transaction: the recipient (conditioned
	// on the version read) with its recipient.status_changed record, one
	// unit of the gift from available to reserved (conditioned on one
	// being available), the campaign's counters (conditioned on it being
	// neither completed nor deleted), the contact's new address entry and,
	// with p.Wallet, the refund with its ledger entry (conditioned on the
	// balance it was decided from). With p.Code (a digital gift) it
	// writes no order and no address: the code is assigned to the
	// recipient (conditioned on it still being unassigned) and counted
	// assigned on its pool, and one unit leaves the gift's available. A
	// failed condition is ErrRecipientChanged (the recipient, or the
	// contact deleted since read), ErrOutOfStock, ErrCampaignEnded,
	// ErrCodeTaken or wallet.ErrBalanceMoved; a conflict or throttling of
	// the refund's transaction wallet.ErrContended.
	CommitClaim(ctx context.Context, p ClaimPlan) error
	// NextCode reads the first code of a digital gift that can be handed
	// out, expiring at from or later, whose index key sorts after after
	// ("" for the first), with its mask; ok false when none is left.
	NextCode(ctx context.Context, orgID, giftID string, from time.Time, after string) (code giftcodes.Slot, ok bool, err error)
	// CommitExpiry writes p in one transaction: the recipient (conditioned
	// on the version read) with its recipient.status_changed record, the
	// counters of its campaign's item (the archived copy with p.Archived;
	// conditioned on the item existing) and, with p.Wallet, the refund. A
	// failed condition is ErrRecipientChanged, ErrCampaignMissing or
	// wallet.ErrBalanceMoved.
	CommitExpiry(ctx context.Context, p ExpiryPlan) error
	// UnclaimedRecipients reads a slice of a campaign's unclaimed
	// recipients' ids after cursor ("" for the first), with the next
	// cursor; done after the last.
	UnclaimedRecipients(ctx context.Context, orgID, campaignID, cursor string) (ids []string, next string, done bool, err error)
	// CampaignExpiryProgressed records where the expiry of a completed or
	// deleted campaign stopped (its next cursor), or with done that it is
	// over, on its due item.
	CampaignExpiryProgressed(ctx context.Context, orgID, campaignID, cursor string, done bool) error
}

// FoundGift is a gift as read, and whether it is the service catalog's
// rather than the organization's own.
type FoundGift struct {
	Gift    gifting.Gift
	Catalog bool
}

// ClaimState is what a claim decides from; each part is nil when the read
// found none.
type ClaimState struct {
	Recipient *Stored
	Campaign  *Campaign
	Gift      *FoundGift
	// Contact is the recipient's contact, read once Check passed; nil
	// when it is gone.
	Contact *contact.Contact
	// OrderID is the id the claim's order takes (a new ULID).
	OrderID string
}

// ClaimPlan is a decided claim, ready to commit in one transaction.
type ClaimPlan struct {
	OrgID string
	// Before is the version the recipient was read at; Recipient is it as
	// claimed.
	Before    int64
	Recipient Stored
	From      gifting.RecipientStatus
	Gift      FoundGift
	// Refund is what goes back to the wallet; Wallet is its plan, decided
	// when Refund is above zero.
	Refund int64
	Wallet *wallet.Plan
	// Contact, when live, gains Address.
	Contact *contact.Contact
	Address gifting.AddressEntry
	Message gifting.Change
	// Order is the order the claim opens, in the same transaction (issue
	// 31): the order, its gift's unit reserved, its messages.
	Order fulfilment.OpenPlan
	// Code, for a digital gift (which opens no order), is the code the
	// claim assigns to the recipient in the same transaction, on the
	// condition that it is still unassigned.
	Code *giftcodes.Slot
}

// ClaimSource is the source type of a contact's address entry that a
// recipient confirmed on a claim page.
const ClaimSource = "recipient"

// ErrCampaignGone is the GONE of a claim whose campaign was completed or
// deleted.
var ErrCampaignGone = gifting.Errorf(gifting.CodeGone, "this campaign has ended, so its gifts can no longer be claimed")

// OutOfStock is the CONFLICT of a gift whose last unit went to someone
// else.
func OutOfStock() error {
	return &gifting.Error{Code: gifting.CodeConflict, Message: "the gift you chose is out of stock; choose another",
		Details: map[string]string{"giftId": "is out of stock"}}
}

// Check decides what the first read of a claim of recipientID allows:
// NOT_FOUND (no recipient), CONFLICT (already claimed), GONE (the campaign
// completed or deleted), VALIDATION_FAILED naming giftId (not one of the
// campaign's gifts) or variantId (missing for a gift with variants, not
// one of its variants, or sent for a gift without), CONFLICT naming
// giftId or variantId (out of stock).
func (st ClaimState) Check(recipientID string, in ClaimInput) error {
	c := st.Campaign
	switch {
	case st.Recipient == nil:
		return gifting.NotFound("recipient", recipientID)
	case st.Recipient.Claimed():
		return ErrAlreadyClaimed
	case c == nil || c.Deleted || c.Completed:
		return ErrCampaignGone
	case st.Gift == nil || !c.Offers(st.Gift.Gift, st.Recipient.CreditsCharged):
		return &gifting.Error{Code: gifting.CodeValidation, Message: "choose one of the campaign's gifts",
			Details: map[string]string{"giftId": "is not one of the campaign's gifts"}}
	case !st.Gift.Gift.InStock():
		return OutOfStock()
	}
	var p gifting.Problems
	checkVariant(&p, st.Gift.Gift, in.VariantID)
	if err := p.Err(); err != nil {
		return err
	}
	if _, inv, ok := st.Gift.Gift.Variant(in.VariantID); ok && inv.Available <= 0 {
		return fulfilment.OutOfStock(in.GiftID, in.VariantID)
	}
	return nil
}

// DecideClaim plans the claim of st's recipient of orgID (Check passed)
// with in at now: the recipient confirms the address with the gift
// (Recipient.Claim: GONE when it expired, CONFLICT when claimed), what the
// gift costs less than the credits held for it comes back (ClaimRefund),
// its live contact gains the address, and the claim opens the gift's order
// (fulfilment.NewOrder: CONFLICT naming giftId when out of stock).
//
// The recipient is stored as processing, not address_confirmed: an order
// is open for fulfilment from the moment it exists, and it exists from
// this transaction (decision 0009). The claim's rules still run through
// address_confirmed (reminders stop), and the recipient's shipmentInfo
// names its order.
func DecideClaim(orgID string, st ClaimState, in ClaimInput, now time.Time) (ClaimPlan, error) {
	cur := *st.Recipient
	r := cur.Recipient
	from := r.Status
	if err := r.Claim(st.Gift.Gift, in.ShippingAddress, now); err != nil {
		return ClaimPlan{}, err
	}
	refund := ClaimRefund(r.CreditsCharged, st.Gift.Gift)
	r.CreditsCharged -= refund
	order, err := fulfilment.NewOrder(orderInput(orgID, st, in.VariantID, r), now)
	if err != nil {
		return ClaimPlan{}, err
	}
	if err := r.Advance(order.Recipient.To, now, cur.Delays); err != nil {
		return ClaimPlan{}, err
	}
	r.ShipmentInfo = order.Recipient.ShipmentInfo
	p := ClaimPlan{OrgID: orgID, Before: cur.Version, Recipient: cur.Next(r), From: from, Gift: *st.Gift,
		Refund: refund, Contact: st.Contact, Message: statusChanged(r, from), Order: order}
	if st.Contact != nil {
		a := r.Address
		p.Address = gifting.AddressEntry{
			Address: gifting.Address{Line1: a.Line1, Line2: a.Line2, City: a.City, State: a.State, Country: a.Country, Zip: a.Zip},
			Type:    "shipping",
			Source:  gifting.SourceRef{Type: ClaimSource, AddedAt: r.UpdatedAt}, AddedAt: r.UpdatedAt, UpdatedAt: r.UpdatedAt,
		}
	}
	return p, nil
}

// orderInput is what the claim of st's recipient, r as claimed, tells the
// order it opens: the gift (and its variant variantID, when not "") and
// that one's stock as read with the organization's low-stock threshold,
// the recipient's name and confirmed address, what it costs.
func orderInput(orgID string, st ClaimState, variantID string, r Recipient) fulfilment.NewOrderInput {
	g, a, d := st.Gift.Gift, r.Address, r.ContactDetails
	inv, variant := g.Inventory, gifting.GiftVariant{}
	if variantID != "" {
		variant, inv, _ = g.Variant(variantID)
	}
	phone := a.PhoneNumber
	if phone == "" {
		phone = d.Phone
	}
	return fulfilment.NewOrderInput{OrderID: st.OrderID, OrgID: orgID, CampaignID: r.CampaignID, RecipientID: r.RecipientID,
		GiftID: g.GiftID, GiftName: g.Name, CatalogGift: st.Gift.Catalog, VariantID: variant.VariantID, VariantName: variant.Name,
		ShipTo: fulfilment.ShipTo{Name: strings.TrimSpace(d.FirstName + " " + d.LastName), Line1: a.Line1, Line2: a.Line2,
			City: a.City, State: a.State, Zip: a.Zip, Country: a.Country, Phone: phone},
		Credits: r.CreditsCharged,
		Stock: fulfilment.Stock{GiftID: g.GiftID, VariantID: variant.VariantID, Total: inv.Total, Available: inv.Available,
			Reserved: inv.Reserved, LowStockAt: g.LowStockThreshold}}
}

// RefundChange is the wallet change of p's refund.
func (p ClaimPlan) RefundChange() wallet.Change {
	return wallet.Change{OrgID: p.OrgID, Type: wallet.Refund, Delta: p.Refund, CampaignID: p.Recipient.CampaignID,
		RecipientID: p.Recipient.RecipientID, Reason: "the recipient chose a gift that costs less than the credits held for it"}
}

// statusChanged is the recipient.status_changed message of r, which moved
// from status from.
func statusChanged(r Recipient, from gifting.RecipientStatus) gifting.Change {
	return gifting.NewChange(gifting.ChangeRecipientStatus, StatusChange{Recipient: r, PreviousStatus: from})
}
