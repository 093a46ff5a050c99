package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// ClaimSource is the source type of a contact's address entry that a
// recipient confirmed on a claim page.
const ClaimSource = "recipient"

// errClaimRace means an item the claim read changed before its
// transaction (the recipient, the contact): read again and retry.
var errClaimRace = errors.New("claim: a read item changed")

// outOfStock is the error of a gift whose last unit went to someone else.
func outOfStock(giftID string) error {
	return &gifting.Error{Code: gifting.CodeConflict, Message: "the gift you chose is out of stock; choose another",
		Details: map[string]string{"giftId": "is out of stock"}}
}

// campaignGone is the error of a claim whose campaign was completed or
// deleted.
var campaignGone = gifting.Errorf(gifting.CodeGone, "this campaign has ended, so its gifts can no longer be claimed")

// ClaimGift records a recipient's claim, all or nothing, in one
// transaction: the recipient moves to address_confirmed with its address
// and chosen gift (conditioned on its version), with its
// recipient.status_changed change record; one unit of the gift moves
// from available to reserved (conditioned on one being available); the
// campaign's status counters move and its creditsSpent drops by the refund
// (conditioned on the campaign being neither completed nor deleted); the
// contact gains the address as an address entry (source recipient). When
// the gift costs less than the credits held for the recipient, the
// difference goes back to the wallet with a refund ledger entry, in the
// same transaction (Store.ChangeBalance). It reads first with one
// BatchGetItem (recipient, campaign, gift, contact).
//
// Errors: NOT_FOUND (recipient), GONE (campaign completed or deleted),
// CONFLICT (already claimed; the gift out of stock, with details giftId),
// VALIDATION_FAILED (the gift is not one of the campaign's).
func (s *Store) ClaimGift(ctx context.Context, orgID, campaignID, recipientID string, in gifting.ClaimInput) (gifting.Recipient, error) {
	for attempt := 1; ; attempt++ {
		r, err := s.claimOnce(ctx, orgID, campaignID, recipientID, in)
		if errors.Is(err, errClaimRace) && attempt < maxAttempts {
			continue
		}
		if errors.Is(err, errClaimRace) {
			return gifting.Recipient{}, fmt.Errorf("claim gave up after %d attempts: %w", attempt, err)
		}
		return r, err
	}
}

// claimOnce reads what a claim needs and runs its transaction once.
func (s *Store) claimOnce(ctx context.Context, orgID, campaignID, recipientID string, in gifting.ClaimInput) (gifting.Recipient, error) {
	org := orgPK(orgID)
	keys := []item{
		key(org, recipientSK(campaignID, recipientID)), key(org, campaignSK(campaignID)),
		key(org, giftSK(in.GiftID)), key(orgPK(gifting.CatalogOrgID), giftSK(in.GiftID)),
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return gifting.Recipient{}, err
	}
	var (
		cur  *storedRecipient
		camp *campaign.Campaign
		gift *giftItem
	)
	for _, it := range got {
		switch attrS(it, "SK") {
		case recipientSK(campaignID, recipientID):
			sr, err := s.readRecipient(ctx, it)
			if err != nil {
				return gifting.Recipient{}, err
			}
			cur = &sr
		case campaignSK(campaignID):
			c, err := decodeCampaign(it)
			if err != nil {
				return gifting.Recipient{}, err
			}
			camp = &c
		case giftSK(in.GiftID):
			var g gifting.Gift
			if err := unmarshal(it, &g); err != nil {
				return gifting.Recipient{}, err
			}
			if pk := attrS(it, "PK"); gift == nil || pk == org {
				gift = &giftItem{Gift: g, pk: pk}
			}
		}
	}
	switch {
	case cur == nil:
		return gifting.Recipient{}, gifting.NotFound("recipient", recipientID)
	case cur.Claimed():
		return gifting.Recipient{}, gifting.Errorf(gifting.CodeConflict, "this gift has already been claimed: the address was confirmed")
	case camp == nil || camp.IsDeleted || camp.Status == campaign.Completed:
		return gifting.Recipient{}, campaignGone
	case gift == nil || !slices.Contains(camp.CampaignData.GiftIDs, in.GiftID):
		return gifting.Recipient{}, &gifting.Error{Code: gifting.CodeValidation, Message: "choose one of the campaign's gifts",
			Details: map[string]string{"giftId": "is not one of the campaign's gifts"}}
	case !gift.InStock():
		return gifting.Recipient{}, outOfStock(in.GiftID)
	}
	contact, err := s.contactIfLive(ctx, orgID, cur.ContactDetails.ContactID)
	if err != nil {
		return gifting.Recipient{}, err
	}
	r := cur.Recipient
	from := r.Status
	if err := r.Claim(gift.Gift, in.ShippingAddress, s.Now()); err != nil {
		return gifting.Recipient{}, err
	}
	refund := gifting.ClaimRefund(r.CreditsCharged, gift.Gift)
	r.CreditsCharged -= refund

	named, err := s.claimItems(orgID, *cur, r, from, *gift, refund, contact)
	if err != nil {
		return gifting.Recipient{}, err
	}
	items := make([]types.TransactWriteItem, len(named))
	for i, n := range named {
		items[i] = n.item
	}
	cancelled := func(reasons []types.CancellationReason) error {
		for i, n := range named {
			if reasonCode(reasons, i) == "ConditionalCheckFailed" {
				return n.failed
			}
		}
		return nil
	}
	moved := recipientStatusChanged(r, from)
	if refund > 0 {
		_, _, err = s.ChangeBalance(ctx, BalanceChange{
			OrgID: orgID, Delta: refund,
			Entry: wallet.Entry{Type: wallet.Refund, CampaignID: campaignID, RecipientID: recipientID,
				Reason: "the recipient chose a gift that costs less than the credits held for it"},
			Items:     func(int64) ([]types.TransactWriteItem, error) { return items, nil },
			Changes:   []gifting.Change{moved},
			Cancelled: cancelled,
		})
	} else if items, err = s.withChange(orgID, moved, items...); err != nil {
		return gifting.Recipient{}, err
	} else if err = s.transactRetrying(ctx, items); err != nil {
		if mapped := cancelled(cancellationReasons(err)); mapped != nil {
			err = mapped
		} else {
			err = fmt.Errorf("claim: %w", err)
		}
	}
	if err != nil {
		return gifting.Recipient{}, err
	}
	return r, nil
}

// namedItem is a transaction item with the error its failed condition
// means.
type namedItem struct {
	item   types.TransactWriteItem
	failed error
}

// claimItems are the claim's transaction items: the recipient (r, read as
// cur), the gift's inventory, the campaign's counters and, when the
// contact is live, its new address entry.
func (s *Store) claimItems(orgID string, cur storedRecipient, r gifting.Recipient, from gifting.RecipientStatus,
	gift giftItem, refund int64, contact *storedContact) ([]namedItem, error) {
	it, err := s.recipientItem(orgID, cur.next(r))
	if err != nil {
		return nil, err
	}
	now := str(gifting.FormatTime(r.UpdatedAt))
	named := []namedItem{
		{item: types.TransactWriteItem{Put: &types.Put{
			TableName: &s.table, Item: it,
			ConditionExpression:       aws.String("ver = :ver"),
			ExpressionAttributeValues: item{":ver": num(cur.Ver)},
		}}, failed: errClaimRace},
		{item: types.TransactWriteItem{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       key(gift.pk, giftSK(gift.GiftID)),
			UpdateExpression:          aws.String("SET inventory.available = inventory.available - :one, inventory.reserved = inventory.reserved + :one, updatedAt = :now"),
			ConditionExpression:       aws.String("inventory.available >= :one"),
			ExpressionAttributeValues: item{":one": num(1), ":now": now},
		}}, failed: outOfStock(gift.GiftID)},
		{item: types.TransactWriteItem{Update: &types.Update{
			TableName:           &s.table,
			Key:                 key(orgPK(orgID), campaignSK(r.CampaignID)),
			UpdateExpression:    aws.String("SET liveData.statusCounts.#from = liveData.statusCounts.#from - :one, liveData.statusCounts.#to = liveData.statusCounts.#to + :one, liveData.creditsSpent = liveData.creditsSpent - :refund"),
			ConditionExpression: aws.String("attribute_exists(PK) AND isDeleted = :false AND #st <> :completed"),
			ExpressionAttributeNames: map[string]string{
				"#from": string(from), "#to": string(r.Status), "#st": "status",
			},
			ExpressionAttributeValues: item{
				":one": num(1), ":refund": num(refund), ":false": &types.AttributeValueMemberBOOL{Value: false},
				":completed": str(string(campaign.Completed)),
			},
		}}, failed: campaignGone},
	}
	if contact != nil {
		entry := gifting.AddressEntry{
			Address: gifting.Address{Line1: r.Address.Line1, Line2: r.Address.Line2, City: r.Address.City,
				State: r.Address.State, Country: r.Address.Country, Zip: r.Address.Zip},
			Type:   "shipping",
			Source: gifting.SourceRef{Type: ClaimSource, AddedAt: r.UpdatedAt}, AddedAt: r.UpdatedAt, UpdatedAt: r.UpdatedAt,
		}
		av, err := marshal(entry)
		if err != nil {
			return nil, err
		}
		compact(av)
		named = append(named, namedItem{item: types.TransactWriteItem{Update: &types.Update{
			TableName:           &s.table,
			Key:                 key(orgPK(orgID), contactSK(contact.ContactID)),
			UpdateExpression:    aws.String("SET addresses = list_append(if_not_exists(addresses, :none), :entry), updatedAt = :now, ver = ver + :one"),
			ConditionExpression: aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: item{
				":none":  &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
				":entry": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: av}}},
				":now":   now, ":one": num(1),
			},
		}}, failed: errClaimRace}) // deleted since read: claim without it
	}
	return named, nil
}

// contactIfLive returns a live contact of org, nil when it is gone.
func (s *Store) contactIfLive(ctx context.Context, orgID, contactID string) (*storedContact, error) {
	if contactID == "" {
		return nil, nil
	}
	c, err := s.contact(ctx, orgID, contactID)
	if errors.Is(err, contact.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}
