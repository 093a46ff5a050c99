package dynamo

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// errAddRace means something add-recipient read changed before its
// transaction (the contact, the campaign): read again and retry.
var errAddRace = errors.New("add recipient: a read item changed")

// AddRecipient adds a contact (created, or merged into the contact with
// the same email) to a campaign as a recipient and pays for it, all in one
// transaction (Store.ChangeBalance): the wallet debit with its ledger entry,
// the contact, the recipient (whose key, derived from the campaign and the
// contact, makes it unique), the campaign counters and the idempotency
// record. It reads first with one BatchGetItem (campaign, wallet, email
// marker, idempotency record) and a second one for the template, the
// campaign's only gift, the existing contact and the marker by which a
// recipient written before derived keys made that contact unique in the
// campaign.
//
// Errors: NOT_FOUND (campaign missing, deleted or another org's), CONFLICT
// (campaign not accepting recipients; contact already a recipient of it),
// INSUFFICIENT_CREDITS (nothing written), IDEMPOTENCY_KEY_REUSED,
// VALIDATION_FAILED (contact).
func (s *Store) AddRecipient(ctx context.Context, in gifting.AddRecipientInput) (gifting.AddRecipientResult, error) {
	if err := contact.CheckCarried(&in.Contact); err != nil {
		return gifting.AddRecipientResult{}, err
	}
	for attempt := 1; ; attempt++ {
		res, err := s.addRecipientOnce(ctx, in)
		if errors.Is(err, errAddRace) && attempt < maxAttempts {
			if err := sleep(ctx, backoff(attempt)); err != nil {
				return gifting.AddRecipientResult{}, err
			}
			continue
		}
		// A concurrent request with the same key may have spent the
		// credits this one was about to: then it is a replay.
		stored, err := s.replayAfter(ctx, in.OrgID, in.Idempotency.KeyOf(), err, gifting.CodeInsufficientCredits)
		if stored != nil {
			return gifting.AddRecipientResult{Replay: stored}, nil
		}
		return res, err
	}
}

// addRecipientOnce reads what add-recipient needs and runs its transaction
// once (ChangeBalance retries balance moves and conflicts itself).
func (s *Store) addRecipientOnce(ctx context.Context, in gifting.AddRecipientInput) (gifting.AddRecipientResult, error) {
	org := orgPK(in.OrgID)
	keys := append([]item{key(org, campaignSK(in.CampaignID)), key(org, walletSK)}, slotKeys(in.OrgID, in.Contact.MailID)...)
	if in.Idempotency != nil {
		keys = append(keys, idempotencyKeyOf(in.OrgID, in.Idempotency.Key))
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return gifting.AddRecipientResult{}, err
	}
	bySK := map[string]item{}
	for _, it := range got {
		bySK[attrS(it, "SK")] = it
	}
	if k := in.Idempotency.KeyOf(); k != nil {
		// The replay check, in the same read.
		stored, err := s.storedFor(*k, bySK[idempotencySK(k.Scope, k.Key)])
		if err != nil {
			return gifting.AddRecipientResult{}, err
		}
		if stored != nil {
			return gifting.AddRecipientResult{}, replayError{stored}
		}
	}
	c, err := s.acceptingCampaign(in, bySK[campaignSK(in.CampaignID)])
	if err != nil {
		return gifting.AddRecipientResult{}, err
	}
	var wallet walletItem
	if it := bySK[walletSK]; it == nil {
		return gifting.AddRecipientResult{}, gifting.NotFound("organization", in.OrgID)
	} else if err := unmarshal(it, &wallet); err != nil {
		return gifting.AddRecipientResult{}, err
	}
	if err := c.PriceOutOfBounds(); err != nil {
		return gifting.AddRecipientResult{}, err
	}
	price := c.CampaignData.CreditsPerRecipient
	if wallet.Balance < price {
		return gifting.AddRecipientResult{}, gifting.Errorf(gifting.CodeInsufficientCredits,
			"adding a recipient to this campaign costs %d credits but the wallet holds %d; top up the wallet", price, wallet.Balance)
	}

	// The second read: the template and single gift (the kit), and the
	// contact holding the email's slot, unless the slot is that contact.
	more := kitKeys(in.OrgID, c)
	slot, err := slotOf(in.OrgID, in.Contact.MailID, bySK)
	if err != nil {
		return gifting.AddRecipientResult{}, err
	}
	contactID := slot.holder
	if contactID != "" {
		// A legacy recipient of this contact has a marker, not a derived key.
		more = append(more, key(org, recipientOfSK(in.CampaignID, contactID)))
	}
	if contactID != "" && slot.cur == nil {
		more = append(more, key(org, contactSK(contactID)))
	}
	var got2 []item
	if len(more) > 0 {
		if got2, err = s.batchGet(ctx, more); err != nil {
			return gifting.AddRecipientResult{}, err
		}
	}
	kit, err := kitFrom(in.OrgID, c, in.PublicBaseURL, got2)
	if err != nil {
		return gifting.AddRecipientResult{}, err
	}
	if err := s.ensureEmailSet(ctx, in.OrgID, &kit); err != nil {
		return gifting.AddRecipientResult{}, err
	}
	if kit.Gift != nil {
		if err := c.UnderPriced([]gifting.Gift{*kit.Gift}); err != nil {
			return gifting.AddRecipientResult{}, err
		}
	}
	cur := slot.cur
	for _, it := range got2 {
		if contactID != "" && attrS(it, "SK") == recipientOfSK(in.CampaignID, contactID) {
			return gifting.AddRecipientResult{}, alreadyRecipient(contactID, in.CampaignID)
		}
	}
	if contactID != "" && cur == nil {
		for _, it := range got2 {
			if attrS(it, "SK") == contactSK(contactID) {
				sc, err := decodeContact(it)
				if err != nil {
					return gifting.AddRecipientResult{}, err
				}
				cur = &sc
			}
		}
		if cur == nil {
			return gifting.AddRecipientResult{}, errAddRace // deleted since the marker was read
		}
	}
	return s.addRecipientWrite(ctx, in, kit, cur, slot.taken, wallet.Balance)
}

// acceptingCampaign decodes the campaign item read for in and checks that
// it takes recipients.
func (s *Store) acceptingCampaign(in gifting.AddRecipientInput, it item) (campaign.Campaign, error) {
	if it == nil {
		return campaign.Campaign{}, gifting.NotFound("campaign", in.CampaignID)
	}
	c, err := decodeCampaign(it)
	if err != nil {
		return c, err
	}
	if c.IsDeleted {
		return c, gifting.NotFound("campaign", in.CampaignID)
	}
	c.Normalize()
	if !c.AcceptsRecipients() {
		return c, gifting.Errorf(gifting.CodeConflict, "campaign %q is %s and no longer accepts recipients", in.CampaignID, c.Status)
	}
	return c, nil
}

// addRecipientWrite plans the contact and the recipient and runs the
// wallet transaction from balance.
func (s *Store) addRecipientWrite(ctx context.Context, in gifting.AddRecipientInput, kit RecipientKit, cur *storedContact, slotTaken bool, balance int64) (gifting.AddRecipientResult, error) {
	c := kit.Campaign
	now := s.Now()
	kit.Invite = in.Invite
	invite := kit.invitesNow()
	ci := in.Contact
	// Pending even when the invitation goes out at once: a recipient is
	// invite_sent only once the mail provider accepted it.
	ci.Campaign = &gifting.ContactCampaign{CampaignID: c.CampaignID, CampaignName: c.Name, Status: string(gifting.RecipientPending)}
	src := gifting.Source{Type: gifting.SourceCampaign, Provider: in.SourceType, AddedAt: now}
	upsert, err := s.contactUpsertFrom(in.OrgID, cur, slotTaken, ci, src)
	if err != nil {
		return gifting.AddRecipientResult{}, err
	}
	r := s.newRecipient(in.OrgID, kit, upsert.Contact, in.SourceType, "")
	if in.AssignTo.UserID != "" {
		r.AssignedUsers = []gifting.AssignedUser{in.AssignTo}
	}
	recPut, counter, err := s.newRecipientItems(in.OrgID, r, kit)
	if err != nil {
		return gifting.AddRecipientResult{}, err
	}
	price := c.CampaignData.CreditsPerRecipient
	res := gifting.AddedRecipient{
		Success: true, Message: "Recipient added", CampaignID: c.CampaignID, ContactID: r.ContactDetails.ContactID,
		RecipientID: r.RecipientID, EmailSent: invite, CreditsDeducted: price,
		LandingPageURL: r.URLs.LandingPage, ClaimPageURL: r.URLs.ClaimPage,
	}
	nContact := len(upsert.Items)
	var created int64
	if upsert.Created {
		created = 1
	}
	var tx txn
	_, _, err = s.ChangeBalance(ctx, BalanceChange{
		OrgID: in.OrgID, Delta: -price, Balance: &balance, Contacts: created,
		Entry: wallet.Entry{Type: wallet.Debit, CampaignID: c.CampaignID, RecipientID: r.RecipientID,
			Reason: "recipient added to campaign"},
		Changes: []gifting.Change{gifting.NewChange(gifting.ChangeRecipientCreated, r)},
		Items: func(after int64) ([]types.TransactWriteItem, error) {
			res.RemainingBalance = after
			tx = txn{items: make([]types.TransactWriteItem, 0, nContact+4)}
			tx.add("", upsert.Items...)
			tx.add(condRecipient, types.TransactWriteItem{Put: &recPut})
			tx.add(condCampaign, counter)
			if in.Idempotency != nil {
				put, err := idempotentPut(s, in.OrgID, in.Idempotency, res)
				if err != nil {
					return nil, err
				}
				tx.add(condIdempotency, put)
			}
			return tx.items, nil
		},
		Cancelled: func(reasons []types.CancellationReason) error {
			if tx.failed(reasons, condIdempotency) {
				if err := s.lostTo(in.Idempotency.Key, tx, reasons); err != nil {
					return err
				}
				return errAddRace // the record expired meanwhile
			}
			if upsert.Conflicted(reasons[:min(nContact, len(reasons))]) {
				return errAddRace
			}
			if tx.failed(reasons, condRecipient) {
				return alreadyRecipient(r.ContactDetails.ContactID, c.CampaignID)
			}
			if tx.failed(reasons, condCampaign) {
				// The campaign changed state or was deleted since it was
				// read: read it again to say which.
				return errAddRace
			}
			return nil
		},
	})
	if err != nil {
		return gifting.AddRecipientResult{}, err
	}
	return gifting.AddRecipientResult{Response: res, Recipient: r, Delays: eventDelays(kit.Emails), EmailSet: kit.EmailSet}, nil
}

// contactUpsertFrom plans the create (cur == nil; slotTaken as slotOf
// found) or merge of in without reading: add-recipient has already read
// the email's slot and the contact in its batched reads. It is
// PrepareContactUpsert minus its reads and its counter: a contact created
// here is counted on the wallet (BalanceChange.Contacts).
func (s *Store) contactUpsertFrom(orgID string, cur *storedContact, slotTaken bool, in gifting.ContactInput, src gifting.Source) (ContactUpsert, error) {
	var (
		p   contactPlan
		err error
	)
	if cur == nil {
		p, err = s.planCreate(orgID, in, src, "", slotTaken)
	} else {
		p, err = s.planMerge(orgID, *cur, in, src, "")
	}
	if err != nil {
		return ContactUpsert{}, err
	}
	return ContactUpsert{Contact: p.contact, Created: cur == nil, Items: p.items}, nil
}

// alreadyRecipient is the CONFLICT of adding a contact that already is a
// recipient of the campaign.
func alreadyRecipient(contactID, campaignID string) error {
	return gifting.Errorf(gifting.CodeConflict, "contact %q is already a recipient of campaign %q", contactID, campaignID)
}
