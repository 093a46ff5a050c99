package recipient

import (
	"context"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// AddStore is what add-recipient needs of storage: two reads, as few as
// the decision allows, and the commit of its plan.
type AddStore interface {
	// LoadAdd reads, in one request, the campaign, the wallet, the slot of
	// the contact's email and the record of the request's idempotency key.
	LoadAdd(ctx context.Context, in AddInput) (AddBasics, error)
	// LoadAddKit reads, in one request, what the recipient is built from
	// (its campaign's template and single gift), the contact holding the
	// email when the first read did not hold it, and the marker of a
	// recipient of that contact written before derived keys; it names the
	// recipient and its pages. It writes the template's email set the
	// first time this process meets it.
	LoadAddKit(ctx context.Context, in AddInput, c Campaign, slot Slot) (AddState, error)
	// CommitAdd writes p in one transaction: the wallet's debit
	// (conditioned on p.Wallet.Before) with its ledger entry holding the
	// change messages, the contact (created only if absent, or merged
	// conditioned on the version read), the recipient (only if absent),
	// the campaign's counters (conditioned on it accepting recipients, and
	// still sending when the invitation is claimed) and the idempotency
	// record (only if no live one exists). A failed condition is
	// wallet.ErrBalanceMoved (a *wallet.BalanceMoved), ErrContactChanged,
	// ErrAlreadyRecipient, ErrCampaignChanged or a *KeyTaken; a conflict
	// or throttling wallet.ErrContended; nothing is written then.
	CommitAdd(ctx context.Context, p AddPlan) error
	// IdempotencyRecord reads the record of a key (strongly consistent),
	// nil when there is none.
	IdempotencyRecord(ctx context.Context, orgID string, k gifting.IdempotencyKey) (*gifting.IdempotencyRecord, error)
	// RewriteRecord replaces the record of w's key with w, only if it
	// still answers the same request (hash).
	RewriteRecord(ctx context.Context, orgID string, w gifting.IdempotencyWrite) error
}

// Slot is who has an email in the organization, as the first read found:
// the holder's contact id ("" when the email is free), the holder's
// contact (as storage read it, with its contact.Stored) when the read held
// it, and whether an item occupies the slot (so a new contact cannot take
// the slot's id).
type Slot struct {
	Holder  string
	Contact *contact.Contact
	Taken   bool
}

// AddBasics is add-recipient's first read.
type AddBasics struct {
	// Campaign is nil when there is none (in this organization).
	Campaign *Campaign
	// HasWallet is false when the organization has no wallet; Balance is
	// the wallet's balance then.
	HasWallet bool
	Balance   int64
	Slot      Slot
	// Record is the idempotency key's record, nil when none (or no key).
	Record *gifting.IdempotencyRecord
}

// AddState is everything add-recipient decides from: the first read, the
// kit, the contact holding the email and the names storage gives the
// recipient.
type AddState struct {
	// Campaign is the campaign Admit admitted.
	Campaign Campaign
	// Slot is who has the email, as the first read found.
	Slot Slot
	Kit  Kit
	// Holding is who has the email (the contact slice's contact.Holding):
	// the contact holding it, or where a new contact for it goes, or Gone
	// when its holder was deleted since the slot was read.
	Holding contact.Holding
	// LegacyRecipient: a recipient of that contact, written before
	// recipient keys were derived from the campaign and the contact,
	// exists.
	LegacyRecipient bool
	// IDs name the recipient and its pages.
	IDs IDs
}

// AddPlan is a decided add-recipient: Debit is its change of the wallet,
// and once that is decided (wallet.Decide, on every attempt), Settled
// gives the plan to commit in one transaction.
type AddPlan struct {
	OrgID string
	// Debit is the change of the wallet the recipient costs; Wallet is
	// its decided plan (Settled).
	Debit  wallet.Change
	Wallet wallet.Plan
	// Contact is the contact slice's plan of the contact: created, or
	// merged into the one read (contact.Upsert).
	Contact   contact.Plan
	Recipient Stored
	// Inviting: the recipient's invitation is claimed to go out at once,
	// so the campaign must still be sending.
	Inviting bool
	// Record is the idempotency record, nil without a key.
	Record *gifting.IdempotencyWrite
	// Messages are the change messages of the writes besides the wallet's
	// own (recipient.created).
	Messages []gifting.Change
	// Result is what the use case answers once committed.
	Result AddResult
	// idem renders the answer into Record (Settled).
	idem *gifting.Idempotent[Added]
}

// Replay decides a request whose key's record b read: the first response
// when it answers the same request, IDEMPOTENCY_KEY_REUSED when another,
// nil otherwise (no key, no record, or one expired).
func (in AddInput) Replay(rec *gifting.IdempotencyRecord, now time.Time) (*gifting.StoredResponse, error) {
	k := in.Idempotency.KeyOf()
	if k == nil {
		return nil, nil
	}
	return k.Replay(rec, now)
}

// Admit decides what the first read allows: the campaign exists, is not
// deleted and accepts recipients (NOT_FOUND, CONFLICT), the organization
// has a wallet (NOT_FOUND), the campaign's price is within bounds
// (CONFLICT) and the wallet holds it (INSUFFICIENT_CREDITS). It returns the
// campaign.
func Admit(in AddInput, b AddBasics) (Campaign, error) {
	if b.Campaign == nil || b.Campaign.Deleted {
		return Campaign{}, gifting.NotFound("campaign", in.CampaignID)
	}
	c := *b.Campaign
	if !c.Accepts {
		return c, gifting.Errorf(gifting.CodeConflict, "campaign %q is %s and no longer accepts recipients", in.CampaignID, c.Status)
	}
	if !b.HasWallet {
		return c, wallet.NoWallet(in.OrgID)
	}
	if err := c.priceOutOfBounds(); err != nil {
		return c, err
	}
	if price := c.Price; b.Balance < price {
		return c, gifting.Errorf(gifting.CodeInsufficientCredits,
			"adding a recipient to this campaign costs %d credits but the wallet holds %d; top up the wallet", price, b.Balance)
	}
	return c, nil
}

// DecideAdd plans add-recipient in from st at now: the debit of the
// recipient's price, the contact created or merged, the pending recipient
// (its invitation claimed when the kit invites at once), the campaign's
// counters and the recipient.created message; Settled adds the wallet's
// plan and the idempotency record of the answer. Errors: CONFLICT (the
// campaign priced below its gift's catalog price; the contact a recipient
// already), VALIDATION_FAILED (the contact's tags), and ErrContactChanged
// when the email's holder was deleted between the reads.
func DecideAdd(in AddInput, st AddState, now time.Time) (AddPlan, error) {
	c, kit := st.Campaign, st.Kit
	var problems gifting.Problems
	CheckNote(&problems, "message", in.Message)
	CheckSenderName(&problems, "senderName", in.SenderName)
	if err := problems.Err(); err != nil {
		return AddPlan{}, err
	}
	if kit.Gift != nil {
		if err := c.underPriced([]gifting.Gift{*kit.Gift}); err != nil {
			return AddPlan{}, err
		}
	}
	if st.LegacyRecipient {
		return AddPlan{}, AlreadyRecipient(st.Slot.Holder, in.CampaignID)
	}
	if st.Holding.Gone {
		return AddPlan{}, ErrContactChanged
	}
	p := AddPlan{OrgID: in.OrgID, idem: in.Idempotency}
	var err error
	if p.Contact, err = addContact(in, st, c, now); err != nil {
		return AddPlan{}, err
	}
	kit.Invite, kit.AssignTo = in.Invite, in.AssignTo
	r := kit.Build(st.IDs, contact.Carried(p.Contact.Contact), in.SourceType, "", now)
	r.Personalization.Message, r.Personalization.SenderName = in.Message, in.SenderName
	p.Recipient = kit.Stored(r, "")
	p.Inviting = r.Emails.AddressConfirmation.ClaimedAt != nil
	price := c.Price
	p.Debit = wallet.Change{OrgID: in.OrgID, Type: wallet.Debit, Delta: -price,
		CampaignID: c.CampaignID, RecipientID: r.RecipientID, Reason: "recipient added to campaign"}
	added := Added{
		CampaignID: c.CampaignID, ContactID: p.Contact.Contact.ContactID, RecipientID: r.RecipientID, EmailSent: kit.InvitesNow(),
		CreditsDeducted: price, LandingPageURL: r.URLs.LandingPage, ClaimPageURL: r.URLs.ClaimPage,
	}
	p.Messages = []gifting.Change{gifting.NewChange(gifting.ChangeRecipientCreated, r)}
	p.Result = AddResult{Response: added, Recipient: r, Delays: EventDelays(kit.Emails), EmailSet: kit.EmailSet}
	return p, nil
}

// Settled is p with its debit decided as w: the answer says the balance
// w leaves, and the idempotency record (none without a key) holds that
// answer.
func (p AddPlan) Settled(w wallet.Plan) (AddPlan, error) {
	p.Wallet = w
	p.Result.Response.RemainingBalance = w.After
	var err error
	p.Record, err = p.idem.Write(p.Result.Response)
	return p, err
}

// addContact plans the contact add-recipient writes (contact.Upsert): a
// new one for in's contact, or the contact holding the email merged with
// it; either shows the campaign, the recipient pending.
func addContact(in AddInput, st AddState, c Campaign, now time.Time) (contact.Plan, error) {
	ci := contact.InputOfCarried(in.Contact)
	// Pending even when the invitation goes out at once: a recipient is
	// invite_sent only once the mail provider accepted it.
	ci.Campaign = &contact.Campaign{CampaignID: c.CampaignID, CampaignName: c.Name, Status: string(gifting.RecipientPending)}
	src := contact.Source{Type: contact.SourceCampaign, Provider: in.SourceType, AddedAt: now}
	return contact.Upsert(st.Holding, in.OrgID, ci, src, "", now)
}

// AlreadyRecipient is the CONFLICT of adding a contact that already is a
// recipient of the campaign.
func AlreadyRecipient(contactID, campaignID string) error {
	return gifting.Errorf(gifting.CodeConflict, "contact %q is already a recipient of campaign %q", contactID, campaignID)
}
