package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/refcheck"
)

// The catalog slice's commits: each writes what the slice decided,
// conditioned on what it was decided from, and reports a failed condition
// as the slice's named outcome (catalogChanged, refDeleted).

// CommitNewGift writes g, new, under its owner (putNew: never overwrites).
func (s *Store) CommitNewGift(ctx context.Context, g catalog.Gift) error {
	return s.putNew(ctx, g.OrganizationID, giftSK(g.GiftID), catalogGiftOf(g))
}

// CommitNewTemplate writes t, new, under its owner.
func (s *Store) CommitNewTemplate(ctx context.Context, t catalog.Template) error {
	return s.putNew(ctx, t.OrganizationID, templateSK(t.TemplateID), catalogTemplateOf(t))
}

// CommitGift writes g over the stored gift if its updatedAt and inventory
// are still seen's: a claim that took a unit meanwhile fails the write
// (catalog.ErrChanged) rather than being overwritten.
func (s *Store) CommitGift(ctx context.Context, g, seen catalog.Gift) error {
	cond, names, vals := seenStock(seen)
	return catalogChanged(s.replaceSeen(ctx, g.OrganizationID, giftSK(g.GiftID), catalogGiftOf(g), seen.UpdatedAt, cond, names, vals))
}

// seenStock is the condition that the gift's counts are still seen's: its
// own, and each variant's (a unit reserved of one variant and another's
// released leave the gift's sum as it was).
func seenStock(seen catalog.Gift) (string, map[string]string, item) {
	cond := "inventory.available = :av AND inventory.reserved = :rv"
	vals := item{":av": num(int64(seen.Inventory.Available)), ":rv": num(int64(seen.Inventory.Reserved))}
	var names map[string]string
	for i, v := range seen.Variants {
		n := strconv.Itoa(i)
		if names == nil {
			names = map[string]string{}
		}
		names["#v"+n] = v.VariantID
		cond += " AND vinv.#v" + n + ".available = :va" + n + " AND vinv.#v" + n + ".reserved = :vr" + n
		vals[":va"+n], vals[":vr"+n] = num(int64(v.Inventory.Available)), num(int64(v.Inventory.Reserved))
	}
	return cond, names, vals
}

// CommitTemplate writes t over the stored template if its updatedAt is
// still seen (catalog.ErrChanged otherwise).
func (s *Store) CommitTemplate(ctx context.Context, t catalog.Template, seen time.Time) error {
	return catalogChanged(s.replaceSeen(ctx, t.OrganizationID, templateSK(t.TemplateID), catalogTemplateOf(t), seen, "", nil, nil))
}

// CommitSeedGift writes the service catalog's gift g, conditioned on the
// stored gift's inventory being stored (on there being no gift when stored
// is nil), so a claim committing meanwhile is read again, never
// overwritten (catalog.ErrChanged).
func (s *Store) CommitSeedGift(ctx context.Context, g catalog.Gift, stored *catalog.Inventory) error {
	cond, vals := aws.String("attribute_not_exists(PK)"), item(nil)
	if stored != nil {
		cond = aws.String("inventory.available = :av AND inventory.reserved = :rv")
		vals = item{":av": num(int64(stored.Available)), ":rv": num(int64(stored.Reserved))}
	}
	it, err := withKey(catalogGiftOf(g), map[string]string{"PK": orgPK(gifting.CatalogOrgID), "SK": giftSK(g.GiftID)})
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: it, ConditionExpression: cond, ExpressionAttributeValues: vals,
	})
	return catalogChanged(err)
}

// CommitSeedTemplates writes the service catalog's templates, replacing
// earlier versions, in batches.
func (s *Store) CommitSeedTemplates(ctx context.Context, ts []catalog.Template) error {
	writes := make([]types.WriteRequest, 0, len(ts))
	for _, t := range ts {
		it, err := withKey(catalogTemplateOf(t), map[string]string{"PK": orgPK(gifting.CatalogOrgID), "SK": templateSK(t.TemplateID)})
		if err != nil {
			return err
		}
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
	}
	return s.batchWrite(ctx, writes)
}

// CommitGiftDelete deletes owner's gift for good, checking drafts in the
// same transaction (commitRefDelete).
func (s *Store) CommitGiftDelete(ctx context.Context, ownerID, giftID string, drafts []refcheck.Referrer) error {
	return refDeleted(s.commitRefDelete(ctx, ownerID, giftSK(giftID), nil, drafts), drafts, gifting.RefGift)
}

// CommitTemplateDelete deletes owner's template for good; see
// CommitGiftDelete.
func (s *Store) CommitTemplateDelete(ctx context.Context, ownerID, templateID string, drafts []refcheck.Referrer) error {
	return refDeleted(s.commitRefDelete(ctx, ownerID, templateSK(templateID), nil, drafts), drafts, gifting.RefTemplate)
}

// replaceSeen overwrites the item sk of org with v, if its updatedAt is
// still seen (and extra, a condition over vals, holds).
func (s *Store) replaceSeen(ctx context.Context, orgID, sk string, v any, seen time.Time, extra string, names map[string]string, vals item) error {
	it, err := withKey(v, map[string]string{"PK": orgPK(orgID), "SK": sk})
	if err != nil {
		return err
	}
	seenVal, err := marshalValue(seen)
	if err != nil {
		return err
	}
	cond := "updatedAt = :seen"
	if extra != "" {
		cond += " AND " + extra
	}
	if vals == nil {
		vals = item{}
	}
	vals[":seen"] = seenVal
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: it, ConditionExpression: aws.String(cond), ExpressionAttributeValues: vals,
		ExpressionAttributeNames: names,
	})
	return err
}

// catalogChanged reports a write whose condition failed (the item changed, or
// went) or that met a conflict or throttling as catalog.ErrChanged: the
// slice reads again and decides again.
func catalogChanged(err error) error {
	if err != nil && (isConditionFailed(err) || retryable(err)) {
		return fmt.Errorf("%w: %w", catalog.ErrChanged, err)
	}
	return err
}

// refDeleted maps the outcome of a gift's or template's delete to the
// catalog's: catalog.ErrNotFound when the item was gone, a
// *catalog.DraftChanged naming the draft that changed.
func refDeleted(err error, drafts []refcheck.Referrer, kind string) error {
	var moved *draftMoved
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errRefGone):
		return catalog.ErrNotFound
	case errors.As(err, &moved):
		return &catalog.DraftChanged{CampaignID: drafts[moved.i].CampaignID, Name: drafts[moved.i].Name}
	}
	return fmt.Errorf("delete %s: %w", kind, err)
}
