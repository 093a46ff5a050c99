package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// ListTemplates returns a page of the templates visible to org (its own
// and the service catalog's) that match f, sorted by f.SortBy (ties by id),
// and their number.
//
// Template collections are small (tens of items per organization, a few in
// the catalog), so a page reads both partitions, one Query each, and
// filters and sorts in memory, as ListGifts does.
func (s *Store) ListTemplates(ctx context.Context, orgID string, f gifting.TemplateFilter, page gifting.PageRequest) ([]gifting.Template, int, error) {
	all, err := visibleCatalog[gifting.Template](ctx, s, orgID, f.IsDelightloop, templatePrefix)
	if err != nil {
		return nil, 0, err
	}
	search := strings.ToLower(strings.TrimSpace(f.Search))
	var matched []gifting.Template
	for _, t := range all {
		if search != "" && !strings.Contains(strings.ToLower(t.TemplateName), search) {
			continue
		}
		if f.Category != "" && !strings.EqualFold(t.TemplateCategory, f.Category) {
			continue
		}
		matched = append(matched, t)
	}
	slices.SortStableFunc(matched, func(a, b gifting.Template) int {
		var c int
		switch f.SortBy {
		case "templateName":
			c = gifting.CompareText(a.TemplateName, b.TemplateName)
		case "updatedAt":
			c = a.UpdatedAt.Compare(b.UpdatedAt)
		case "successRate":
			c = cmp.Compare(a.SuccessRate, b.SuccessRate)
		default:
			c = a.CreatedAt.Compare(b.CreatedAt)
		}
		return gifting.CompareBy(f.Order, c, a.TemplateID, b.TemplateID)
	})
	lo, hi := page.Window(len(matched))
	return matched[lo:hi], len(matched), nil
}

// ownGift reads org's own gift: a service-catalog gift, or another
// organization's, is NOT_FOUND (tenants cannot change them).
func (s *Store) ownGift(ctx context.Context, orgID, giftID string) (gifting.Gift, error) {
	return getOrNotFound[gifting.Gift](ctx, s, orgPK(orgID), giftSK(giftID), gifting.NotFound("gift", giftID))
}

// ownTemplate reads org's own template; see ownGift.
func (s *Store) ownTemplate(ctx context.Context, orgID, templateID string) (gifting.Template, error) {
	return getOrNotFound[gifting.Template](ctx, s, orgPK(orgID), templateSK(templateID), gifting.NotFound("template", templateID))
}

// UpdateGift applies patch to org's own gift and returns it as stored. The
// write is conditioned on the gift as read, inventory included, so a claim
// that takes a unit meanwhile is never overwritten: the patch is read and
// applied again. It returns NOT_FOUND for a gift that is not org's own (the
// service catalog's included) and VALIDATION_FAILED for a bad patch.
func (s *Store) UpdateGift(ctx context.Context, orgID, giftID string, patch gifting.GiftPatch) (gifting.Gift, error) {
	for attempt := 1; ; attempt++ {
		g, err := s.ownGift(ctx, orgID, giftID)
		if err != nil {
			return g, err
		}
		seen := g
		if err := patch.Apply(&g, s.Now()); err != nil {
			return gifting.Gift{}, err
		}
		err = s.replaceSeen(ctx, orgID, giftSK(giftID), g, seen.UpdatedAt,
			"inventory.available = :av AND inventory.reserved = :rv",
			item{":av": num(int64(seen.Inventory.Available)), ":rv": num(int64(seen.Inventory.Reserved))})
		if err == nil {
			return g, nil
		}
		if err := s.retryReplace(ctx, err, attempt); err != nil {
			return gifting.Gift{}, fmt.Errorf("update gift: %w", err)
		}
	}
}

// UpdateTemplate applies patch to org's own template; see UpdateGift.
func (s *Store) UpdateTemplate(ctx context.Context, orgID, templateID string, patch gifting.TemplatePatch) (gifting.Template, error) {
	for attempt := 1; ; attempt++ {
		t, err := s.ownTemplate(ctx, orgID, templateID)
		if err != nil {
			return t, err
		}
		seen := t.UpdatedAt
		if err := patch.Apply(&t, s.Now()); err != nil {
			return gifting.Template{}, err
		}
		err = s.replaceSeen(ctx, orgID, templateSK(templateID), t, seen, "", nil)
		if err == nil {
			return t, nil
		}
		if err := s.retryReplace(ctx, err, attempt); err != nil {
			return gifting.Template{}, fmt.Errorf("update template: %w", err)
		}
	}
}

// replaceSeen overwrites the item sk of org with v, if its updatedAt is
// still seen (and extra, a condition over vals, holds).
func (s *Store) replaceSeen(ctx context.Context, orgID, sk string, v any, seen time.Time, extra string, vals item) error {
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
	})
	return err
}

// retryReplace waits before another read-apply-write round when err is a
// failed condition (the item changed, or went) or throttling, and returns
// err otherwise or after too many attempts.
func (s *Store) retryReplace(ctx context.Context, err error, attempt int) error {
	if !(isConditionFailed(err) || retryable(err)) || attempt >= maxAttempts {
		return err
	}
	return sleep(ctx, backoff(attempt))
}

// DeleteGift removes org's own gift for good; see deleteReferenced.
func (s *Store) DeleteGift(ctx context.Context, orgID, giftID string, drafts []campaign.Campaign) error {
	if _, err := s.ownGift(ctx, orgID, giftID); err != nil {
		return err
	}
	return s.deleteReferenced(ctx, orgID, gifting.Ref{Kind: gifting.RefGift, ID: giftID}, giftSK(giftID), nil, drafts)
}

// DeleteTemplate removes org's own template for good; see deleteReferenced.
func (s *Store) DeleteTemplate(ctx context.Context, orgID, templateID string, drafts []campaign.Campaign) error {
	if _, err := s.ownTemplate(ctx, orgID, templateID); err != nil {
		return err
	}
	return s.deleteReferenced(ctx, orgID, gifting.Ref{Kind: gifting.RefTemplate, ID: templateID}, templateSK(templateID), nil, drafts)
}

// deleteReferenced deletes the item sk of ref (with extra items, such as a
// tombstone) in one transaction that also checks that each of drafts, the
// draft campaigns found referring to ref, is still the draft that was read:
// a launch of one of them commits either before (the delete then fails with
// CONFLICT) or after (the launch then finds ref missing). It returns
// NOT_FOUND when the item is gone and CONFLICT when a draft changed.
func (s *Store) deleteReferenced(ctx context.Context, orgID string, ref gifting.Ref, sk string, extra []types.TransactWriteItem, drafts []campaign.Campaign) error {
	if len(drafts) > maxDraftChecks {
		return gifting.Errorf(gifting.CodeConflict, "%d draft campaigns refer to %s %q; remove it from some of them first (at most %d)",
			len(drafts), ref.Kind, ref.ID, maxDraftChecks)
	}
	var tx txn
	tx.add(condTarget, types.TransactWriteItem{Delete: &types.Delete{
		TableName: &s.table, Key: key(orgPK(orgID), sk), ConditionExpression: aws.String("attribute_exists(PK)"),
	}})
	tx.add("", extra...)
	for i, c := range drafts {
		seen, err := marshalValue(c.UpdatedAt)
		if err != nil {
			return err
		}
		tx.add(draftCheck(i), types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{
			TableName: &s.table, Key: key(orgPK(orgID), campaignSK(c.CampaignID)),
			ConditionExpression:      aws.String("#st = :draft AND updatedAt = :seen"),
			ExpressionAttributeNames: map[string]string{"#st": "status"},
			ExpressionAttributeValues: item{
				":draft": str(string(campaign.Draft)), ":seen": seen,
			},
		}})
	}
	err := s.transactRetrying(ctx, tx.items)
	if err == nil {
		return nil
	}
	reasons := cancellationReasons(err)
	if tx.failed(reasons, condTarget) {
		return gifting.NotFound(ref.Kind, ref.ID)
	}
	for i, c := range drafts {
		if tx.failed(reasons, draftCheck(i)) {
			return gifting.Errorf(gifting.CodeConflict, "campaign %q (%s) changed while %s %q was being deleted; try again",
				c.CampaignID, c.Name, ref.Kind, ref.ID)
		}
	}
	return fmt.Errorf("delete %s: %w", ref.Kind, err)
}

// maxDraftChecks bounds the drafts a delete checks in its transaction
// (DynamoDB's limit is 100 items, with the delete and a tombstone).
const maxDraftChecks = 90

// draftCheck names the check of the i-th draft of a delete.
func draftCheck(i int) string { return "draft#" + fmt.Sprint(i) }

// CampaignsReferring returns org's campaigns that refer to ref, the
// soft-deleted ones included (their recipients' pages still show the
// campaign's gifts), ordered by id.
//
// Cost: the org's campaigns, live and deleted, are read whole (two Queries,
// about 1 read unit per 8 campaigns). Campaigns per organization are few
// (tens to hundreds: each is a sending a person sets up), so a delete of a
// template, gift or list reads at most a few hundred small items; this is
// the bound docs/data-model.md's access-pattern table states, and deletes are rare.
func (s *Store) CampaignsReferring(ctx context.Context, orgID string, ref gifting.Ref) ([]campaign.Campaign, error) {
	var out []campaign.Campaign
	for _, prefix := range []string{campaignPrefix, deletedCampaignPrefix} {
		items, err := s.queryPrefix(ctx, orgPK(orgID), prefix, true)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			c, err := decodeCampaign(it)
			if err != nil {
				return nil, err
			}
			c.Normalize()
			if c.RefersTo(ref) {
				out = append(out, c)
			}
		}
	}
	return out, nil
}
