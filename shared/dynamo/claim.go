package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// A claim's storage: its reads and the commit of its plan
// (shared/recipient decides: ClaimState.Check, DecideClaim).

// LoadClaim reads with one BatchGetItem the recipient, its campaign and
// the gift giftID, the organization's own or else the catalog's
// (recipient.ClaimStore).
func (s *Store) LoadClaim(ctx context.Context, orgID, campaignID, recipientID, giftID string) (recipient.ClaimState, error) {
	org := orgPK(orgID)
	keys := []item{
		key(org, recipientSK(campaignID, recipientID)), key(org, campaignSK(campaignID)),
		key(org, giftSK(giftID)), key(orgPK(gifting.CatalogOrgID), giftSK(giftID)),
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return recipient.ClaimState{}, err
	}
	var st recipient.ClaimState
	for _, it := range got {
		switch attrS(it, "SK") {
		case recipientSK(campaignID, recipientID):
			sr, err := s.readRecipient(ctx, it)
			if err != nil {
				return st, err
			}
			st.Recipient = &sr
		case campaignSK(campaignID):
			c, err := decodeCampaign(it)
			if err != nil {
				return st, err
			}
			rc := c.ForRecipients()
			st.Campaign = &rc
		case giftSK(giftID):
			var g gifting.Gift
			if err := unmarshal(it, &g); err != nil {
				return st, err
			}
			if pk := attrS(it, "PK"); st.Gift == nil || pk == org {
				st.Gift = &recipient.FoundGift{Gift: g, Catalog: pk != org}
			}
		}
	}
	return st, nil
}

// LiveContact returns a live contact of org, nil when it is gone
// (recipient.ClaimStore).
func (s *Store) LiveContact(ctx context.Context, orgID, contactID string) (*contact.Contact, error) {
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
	cc := c.contact()
	return &cc, nil
}

// CommitClaim writes p in one transaction (recipient.ClaimStore): with a
// refund, through the wallet's commitPlan (its update and ledger entry
// first, holding the change record); without, the claim's items and the
// change record of its own.
func (s *Store) CommitClaim(ctx context.Context, p recipient.ClaimPlan) error {
	build, cancelled := s.claimItems, claimCancelled
	if p.Code != nil {
		build, cancelled = s.digitalClaimItems, digitalClaimCancelled
	}
	items, err := build(p)
	if err != nil {
		return err
	}
	if p.Wallet != nil {
		return s.commitPlan(ctx, *p.Wallet, planWrites{items: items, changes: append([]gifting.Change{p.Message}, p.Order.Messages...), events: claimEvents(p),
			cancelled: func(reasons []types.CancellationReason) error { return cancelled(p, reasons) }})
	}
	change, err := s.changePut(p.OrgID, append([]gifting.Change{p.Message}, p.Order.Messages...)...)
	if err != nil {
		return err
	}
	items = append(append(items, change), s.eventsAdd(p.OrgID, claimEvents(p))...)
	if err = s.transactRetrying(ctx, items); err != nil {
		if mapped := cancelled(p, cancellationReasons(err)); mapped != nil {
			return mapped
		}
		return fmt.Errorf("claim: %w", err)
	}
	return nil
}

// claimCancelled maps a cancelled claim (reasons aligned with claimItems)
// to the recipient slice's outcome, nil when not understood: the recipient
// changed since read, the gift out of stock (or its counts moved since
// read), the campaign ended, the contact deleted since read (read again:
// the claim goes on without it).
func claimCancelled(p recipient.ClaimPlan, reasons []types.CancellationReason) error {
	outcomes := []error{recipient.ErrRecipientChanged, nil, recipient.ErrCampaignEnded, recipient.ErrRecipientChanged}
	for i, outcome := range outcomes {
		if i == 3 && p.Contact == nil {
			break
		}
		if reasonCode(reasons, i) == "ConditionalCheckFailed" {
			if i == 1 {
				return stockFailed(reasons[i].Item, p.Order.Stock.VariantID)
			}
			return outcome
		}
	}
	return nil
}

// claimStock is the claim's item of its gift's stock: the unit reserved,
// or, for an order that moves no stock (a sandbox's claim of a catalog
// gift), a check that the gift is still there.
func (s *Store) claimStock(p recipient.ClaimPlan) types.TransactWriteItem {
	if p.Order.Stock.Kind != "" {
		return s.stockUpdate(p.OrgID, p.Gift.Catalog, p.Order.Stock)
	}
	pk := orgPK(p.OrgID)
	if p.Gift.Catalog {
		pk = orgPK(gifting.CatalogOrgID)
	}
	return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: &s.table,
		Key: key(pk, giftSK(p.Order.Order.GiftID)), ConditionExpression: aws.String("attribute_exists(PK)")}}
}

// claimItems are the claim's transaction items, in claimCancelled's order:
// the recipient (conditioned on the version read), the gift's unit
// reserved (the order's stock move), the campaign's counters, when the
// contact is live its new address entry, and the order, new.
func (s *Store) claimItems(p recipient.ClaimPlan) ([]types.TransactWriteItem, error) {
	r := p.Recipient
	it, err := s.recipientItem(p.OrgID, r)
	if err != nil {
		return nil, err
	}
	now := str(gifting.FormatTime(r.UpdatedAt))
	items := []types.TransactWriteItem{
		{Put: &types.Put{
			TableName: &s.table, Item: it,
			ConditionExpression:       aws.String("ver = :ver"),
			ExpressionAttributeValues: item{":ver": num(p.Before)},
		}},
		s.claimStock(p),
		s.claimCampaignUpdate(p),
	}
	order, err := orderAttrs(p.Order.Order)
	if err != nil {
		return nil, err
	}
	orderPut := types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: order,
		ConditionExpression: aws.String("attribute_not_exists(PK)")}}
	if p.Contact == nil {
		return append(items, orderPut), nil
	}
	av, err := marshal(p.Address)
	if err != nil {
		return nil, err
	}
	compact(av)
	return append(items, types.TransactWriteItem{Update: &types.Update{
		TableName:           &s.table,
		Key:                 key(orgPK(p.OrgID), contactSK(p.Contact.ContactID)),
		UpdateExpression:    aws.String("SET addresses = list_append(if_not_exists(addresses, :none), :entry), updatedAt = :now, ver = ver + :one"),
		ConditionExpression: aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: item{
			":none":  &types.AttributeValueMemberL{Value: []types.AttributeValue{}},
			":entry": &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberM{Value: av}}},
			":now":   now, ":one": num(1),
		},
	}}, orderPut), nil
}

// claimCampaignUpdate moves the claim's recipient from p.From to its new
// status in its campaign's counters and takes the refund off what the
// campaign spent, on the condition that the campaign is neither completed
// nor deleted.
func (s *Store) claimCampaignUpdate(p recipient.ClaimPlan) types.TransactWriteItem {
	r := p.Recipient
	return types.TransactWriteItem{Update: &types.Update{
		TableName: &s.table,
		Key:       key(orgPK(p.OrgID), campaignSK(r.CampaignID)),
		// The refund counted apart too, and the claim's delay in its
		// bucket (campaign_item.go).
		UpdateExpression: aws.String("SET liveData.statusCounts.#from = liveData.statusCounts.#from - :one, liveData.statusCounts.#to = liveData.statusCounts.#to + :one, liveData.creditsSpent = liveData.creditsSpent - :refund, " +
			refundedExpr + " ADD #cd :one"),
		ConditionExpression: aws.String("attribute_exists(PK) AND isDeleted = :false AND #st <> :completed"),
		ExpressionAttributeNames: map[string]string{
			"#from": string(p.From), "#to": string(r.Status), "#st": "status",
			"#cd": claimDelayAttr(gifting.ClaimDelayBucket(r.ClaimDelay())),
		},
		ExpressionAttributeValues: item{
			":one": num(1), ":refund": num(p.Refund), ":false": &types.AttributeValueMemberBOOL{Value: false},
			":completed": str(string(campaign.Completed)), ":zero": num(0),
		},
	}}
}
