package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// The claim of a digital gift's storage (shared/recipient decides:
// DecideDigitalClaim): the code it takes, and the transaction that
// assigns it. An assigned code leaves the gift's Slim partition of codes
// that can be handed out, and holds whom it went to:
//
//	code   SK=GCODE#<gift>#<code id>: asg (<campaign>#<recipient>), asgAt

// NextCode reads the gift's first code that can be handed out expiring at
// from or later, after the index key after when not "": one key of its
// Slim partition (eventually consistent: a code taken a moment ago may
// still be listed, and the claim's condition on it fails), then the
// code's mask (recipient.ClaimStore).
func (s *Store) NextCode(ctx context.Context, orgID, giftID string, from time.Time, after string) (giftcodes.Slot, bool, error) {
	in := s.slimQuery(codesLPK(orgID, giftID), true)
	bound := from.UTC().Format(codeTimeLayout)
	in.KeyConditionExpression = aws.String("LPK = :lpk AND LSK >= :from")
	if after >= bound {
		in.KeyConditionExpression = aws.String("LPK = :lpk AND LSK > :from")
		bound = after
	}
	in.ExpressionAttributeValues[":from"] = str(bound)
	in.Limit = aws.Int32(1)
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return giftcodes.Slot{}, false, fmt.Errorf("query a gift's codes: %w", err)
	}
	if len(out.Items) == 0 {
		return giftcodes.Slot{}, false, nil
	}
	first := out.Items[0]
	slot := giftcodes.Slot{ID: strings.TrimPrefix(attrS(first, "SK"), codeSK(giftID, "")), Key: attrS(first, "LSK")}
	var code struct {
		Masked string `json:"msk"`
	}
	if _, err := s.get(ctx, orgPK(orgID), codeSK(giftID, slot.ID), &code); err != nil {
		return giftcodes.Slot{}, false, err
	}
	slot.Masked = code.Masked
	return slot, true, nil
}

// codeHolder is how an assigned code names its recipient.
func codeHolder(campaignID, recipientID string) string { return campaignID + "#" + recipientID }

// digitalClaimItems are the claim of a digital gift's transaction items,
// in digitalClaimCancelled's order: the recipient (conditioned on the
// version read), one unit off the gift's available (conditioned on one
// being there), the campaign's counters, the code assigned (conditioned
// on it still holding the index key it was chosen by: unassigned) and the
// pool's count of assigned codes.
func (s *Store) digitalClaimItems(p recipient.ClaimPlan) ([]types.TransactWriteItem, error) {
	r := p.Recipient
	it, err := s.recipientItem(p.OrgID, r)
	if err != nil {
		return nil, err
	}
	org, giftID := orgPK(p.OrgID), p.Gift.Gift.GiftID
	return []types.TransactWriteItem{
		{Put: &types.Put{TableName: &s.table, Item: it,
			ConditionExpression:       aws.String("ver = :ver"),
			ExpressionAttributeValues: item{":ver": num(p.Before)}}},
		{Update: &types.Update{TableName: &s.table, Key: key(org, giftSK(giftID)),
			UpdateExpression:          aws.String("SET inventory.#a = inventory.#a - :one"),
			ConditionExpression:       aws.String("attribute_exists(PK) AND inventory.#a >= :one"),
			ExpressionAttributeNames:  map[string]string{"#a": "available"},
			ExpressionAttributeValues: item{":one": num(1)}}},
		s.claimCampaignUpdate(p),
		{Update: &types.Update{TableName: &s.table, Key: key(org, codeSK(giftID, p.Code.ID)),
			UpdateExpression:    aws.String("SET asg = :to, asgAt = :now REMOVE LPK, LSK"),
			ConditionExpression: aws.String("LSK = :slot"),
			ExpressionAttributeValues: item{":to": str(codeHolder(r.CampaignID, r.RecipientID)),
				":now": str(gifting.FormatTime(r.UpdatedAt)), ":slot": str(p.Code.Key)}}},
		{Update: &types.Update{TableName: &s.table, Key: key(org, codePoolSK(giftID)),
			UpdateExpression:          aws.String("ADD assigned :one"),
			ConditionExpression:       aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: item{":one": num(1)}}},
	}, nil
}

// digitalClaimCancelled maps a cancelled claim of a digital gift (reasons
// aligned with digitalClaimItems) to the recipient slice's outcome, nil
// when not understood.
func digitalClaimCancelled(_ recipient.ClaimPlan, reasons []types.CancellationReason) error {
	outcomes := []error{recipient.ErrRecipientChanged, recipient.ErrOutOfStock, recipient.ErrCampaignEnded,
		recipient.ErrCodeTaken, recipient.ErrOutOfStock}
	for i, outcome := range outcomes {
		if reasonCode(reasons, i) == "ConditionalCheckFailed" {
			return outcome
		}
	}
	return nil
}

// AssignedCode reads a code's sealed secret and whom it was assigned to
// (recipient.CodeStore).
func (s *Store) AssignedCode(ctx context.Context, orgID, giftID, codeID string) (sealed, campaignID, recipientID string, err error) {
	var c struct {
		Sealed string `json:"sec"`
		Holder string `json:"asg"`
	}
	found, err := s.get(ctx, orgPK(orgID), codeSK(giftID, codeID), &c)
	if err != nil {
		return "", "", "", err
	}
	if !found {
		return "", "", "", recipient.ErrNoCode
	}
	campaignID, recipientID, _ = strings.Cut(c.Holder, "#")
	return c.Sealed, campaignID, recipientID, nil
}
