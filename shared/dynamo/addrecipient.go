package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// Add-recipient's storage: its two reads and the commit of its plan
// (shared/recipient decides: Admit, DecideAdd; its App retries).

// The store implements the recipient slice's port.
var _ recipient.Store = (*Store)(nil)

// LoadAdd reads with one BatchGetItem the campaign, the wallet, the slot
// (and legacy marker) of the contact's email and the record of the
// request's idempotency key (recipient.AddStore).
func (s *Store) LoadAdd(ctx context.Context, in recipient.AddInput) (recipient.AddBasics, error) {
	org := orgPK(in.OrgID)
	keys := append([]item{key(org, campaignSK(in.CampaignID)), key(org, walletSK)}, slotKeys(in.OrgID, in.Contact.MailID)...)
	k := in.Idempotency.KeyOf()
	if k != nil {
		keys = append(keys, idempotencyKeyOf(in.OrgID, *k))
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return recipient.AddBasics{}, err
	}
	bySK := bySortKey(got)
	var b recipient.AddBasics
	if k != nil {
		if b.Record, err = idempotencyRecordOf(bySK[idempotencySK(k.Scope, k.Key)]); err != nil {
			return b, err
		}
	}
	if it := bySK[campaignSK(in.CampaignID)]; it != nil {
		c, err := decodeCampaign(it)
		if err != nil {
			return b, err
		}
		rc := c.ForRecipients()
		b.Campaign = &rc
	}
	if it := bySK[walletSK]; it != nil {
		var w walletItem
		if err := unmarshal(it, &w); err != nil {
			return b, err
		}
		b.HasWallet, b.Balance = true, w.Balance
	}
	slot, err := slotOf(in.OrgID, in.Contact.MailID, bySK)
	if err != nil {
		return b, err
	}
	b.Slot = recipient.Slot{Holder: slot.holder, Taken: slot.taken}
	if slot.cur != nil {
		c := slot.cur.contact()
		b.Slot.Contact = &c
	}
	return b, nil
}

// LoadAddKit reads with one BatchGetItem the template and single gift of
// campaign c (the kit), and, when the email has a holder, the marker by
// which a recipient written before derived keys made that contact unique
// in the campaign and the holder's contact unless the first read held it
// (recipient.AddStore). It writes the kit's email set the first time this
// process meets it, and names the recipient: its id derived from the
// campaign and the contact, its page ids drawn.
func (s *Store) LoadAddKit(ctx context.Context, in recipient.AddInput, c recipient.Campaign, slot recipient.Slot) (recipient.AddState, error) {
	org := orgPK(in.OrgID)
	more := kitKeys(in.OrgID, c)
	holder := slot.Holder
	if holder != "" {
		// A legacy recipient of this contact has a marker, not a derived key.
		more = append(more, key(org, recipientOfSK(in.CampaignID, holder)))
		if slot.Contact == nil {
			more = append(more, key(org, contactSK(holder)))
		}
	}
	var got []item
	if len(more) > 0 {
		var err error
		if got, err = s.batchGet(ctx, more); err != nil {
			return recipient.AddState{}, err
		}
	}
	kit, err := kitFrom(in.OrgID, c, in.PublicBaseURL, got)
	if err != nil {
		return recipient.AddState{}, err
	}
	if err := s.ensureEmailSet(ctx, in.OrgID, &kit); err != nil {
		return recipient.AddState{}, err
	}
	st := recipient.AddState{Campaign: c, Slot: slot, Kit: kit}
	if slot.Contact != nil {
		st.Holding = contact.Holding{Found: true, Contact: *slot.Contact}
	}
	for _, it := range got {
		switch attrS(it, "SK") {
		case recipientOfSK(in.CampaignID, holder):
			st.LegacyRecipient = holder != ""
		case contactSK(holder):
			sc, err := decodeContact(it)
			if err != nil {
				return st, err
			}
			st.Holding = contact.Holding{Found: true, Contact: sc.contact()}
		}
	}
	switch {
	case holder == "":
		st.Holding = newHolding(in.OrgID, in.Contact.MailID, slot.Taken)
	case !st.Holding.Found:
		// The holder was deleted since the slot was read.
		st.Holding.Gone = true
	}
	contactID := st.Holding.Contact.ContactID
	st.IDs = recipient.IDs{OrgID: in.OrgID, RecipientID: recipientIDFor(c.CampaignID, contactID)}
	st.IDs.LandingPageID, st.IDs.ClaimPageID = newPageIDs(gifting.PageRef{OrgID: in.OrgID, CampaignID: c.CampaignID, RecipientID: st.IDs.RecipientID})
	return st, nil
}

// CommitAdd writes p in one transaction (recipient.AddStore): the wallet's
// debit with its ledger entry (commitPlan), then the contact's items
// (planItems: created at its email's slot, claiming the slot beside it when
// an item occupies it, or merged into the contact read, conditioned on its
// version; with its search entries), the recipient only if absent, the
// campaign's counters and the idempotency record; a contact it creates is
// counted on the wallet.
func (s *Store) CommitAdd(ctx context.Context, p recipient.AddPlan) error {
	contactItems, _, err := s.planItems(p.OrgID, p.Contact)
	if err != nil {
		return err
	}
	r := p.Recipient
	it, err := s.recipientItem(p.OrgID, r)
	if err != nil {
		return err
	}
	tx := txn{items: make([]types.TransactWriteItem, 0, len(contactItems)+8)}
	tx.add("", contactItems...)
	tx.add(condRecipient, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it,
		ConditionExpression: aws.String("attribute_not_exists(PK)")}})
	tx.add(condCampaign, s.campaignCounters(p.OrgID, r.CampaignID, map[gifting.RecipientStatus]int64{r.Status: 1}, r.CreditsCharged, p.Inviting))
	// Its search entries (recipientsearch.go), with it or not at all.
	tx.add("", s.recipientWordPuts(p.OrgID, r.Recipient)...)
	if w := p.Record; w != nil {
		put, err := s.idempotencyPut(p.OrgID, w.Key, w.Status, w.Body)
		if err != nil {
			return err
		}
		tx.add(condIdempotency, put)
	}
	var created int64
	if p.Contact.Created() {
		created = 1
	}
	return s.commitPlan(ctx, p.Wallet, planWrites{items: tx.items, changes: p.Messages, contacts: created, recipients: 1,
		events:    campaign.MoveEvents("", r.Status, 1),
		cancelled: func(reasons []types.CancellationReason) error { return addCancelled(&tx, len(contactItems), reasons) }})
}

// addCancelled maps a cancelled add-recipient transaction (reasons aligned
// with tx, whose first nContact items write the contact) to the recipient
// slice's outcome: the idempotency record found first (*KeyTaken, with it),
// the contact changed, the recipient existing, the campaign changed; nil
// when not understood.
func addCancelled(tx *txn, nContact int, reasons []types.CancellationReason) error {
	if tx.failed(reasons, condIdempotency) {
		rec, err := idempotencyRecordOf(tx.old(reasons, condIdempotency))
		if err != nil {
			return err
		}
		return &recipient.KeyTaken{Record: rec}
	}
	for i := range nContact {
		switch reasonCode(reasons, i) {
		case "ConditionalCheckFailed", "TransactionConflict":
			return recipient.ErrContactChanged
		}
	}
	if tx.failed(reasons, condRecipient) {
		return recipient.ErrAlreadyRecipient
	}
	if tx.failed(reasons, condCampaign) {
		return recipient.ErrCampaignChanged
	}
	return nil
}

// IdempotencyRecord reads the record of k (strongly consistent), nil when
// there is none (recipient.AddStore).
func (s *Store) IdempotencyRecord(ctx context.Context, orgID string, k gifting.IdempotencyKey) (*gifting.IdempotencyRecord, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: idempotencyKeyOf(orgID, k), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("get idempotency record: %w", err)
	}
	return idempotencyRecordOf(out.Item)
}

// RewriteRecord replaces the idempotency record of w's key with w, only if
// the record answers the same request (its hash): add-recipient's stored
// answer, once its invitation could not go out at once
// (recipient.AddStore).
func (s *Store) RewriteRecord(ctx context.Context, orgID string, w gifting.IdempotencyWrite) error {
	put, err := s.idempotencyPut(orgID, w.Key, w.Status, w.Body)
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: put.Put.TableName, Item: put.Put.Item,
		ConditionExpression:       aws.String("#hash = :hash"),
		ExpressionAttributeNames:  map[string]string{"#hash": "hash"},
		ExpressionAttributeValues: item{":hash": str(w.Key.Hash)},
	})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("rewrite idempotent response: %w", err)
	}
	return nil
}
