package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/refcheck"
)

// The deletes of what campaigns refer to (templates, gifts, contact
// lists): the campaigns that refer to an item, and the transaction that
// deletes it while checking that the referring drafts did not change.

// CampaignsReferring returns org's campaigns that refer to ref, the
// soft-deleted ones included (their recipients' pages still show the
// campaign's gifts), ordered by id.
//
// Cost: the org's campaigns, live and deleted, are read whole (two Queries,
// about 1 read unit per 8 campaigns). Campaigns per organization are few
// (tens to hundreds: each is a sending a person sets up), so a delete of a
// template, gift or list reads at most a few hundred small items; this is
// the bound docs/data-model.md's access-pattern table states, and deletes are rare.
func (s *Store) CampaignsReferring(ctx context.Context, orgID string, ref gifting.Ref) ([]refcheck.Referrer, error) {
	var out []refcheck.Referrer
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
				out = append(out, c.Referrer())
			}
		}
	}
	return out, nil
}

// The outcomes of commitRefDelete, for its callers to map to theirs.
var errRefGone = errors.New("the item to delete is gone")

// draftMoved: the i-th draft checked had changed.
type draftMoved struct{ i int }

func (d *draftMoved) Error() string { return fmt.Sprintf("draft %d changed", d.i) }

// commitRefDelete deletes the item sk of org (with extra items, such as a
// tombstone) in one transaction that also checks that each of drafts, the
// draft campaigns found referring to it, is still the draft that was read:
// a launch of one of them commits either before (the delete then fails)
// or after (the launch then finds the item missing). It returns errRefGone
// when the item is gone and a *draftMoved when a draft changed.
func (s *Store) commitRefDelete(ctx context.Context, orgID, sk string, extra []types.TransactWriteItem, drafts []refcheck.Referrer) error {
	if len(drafts) > refcheck.MaxDraftChecks {
		// The caller decides first (refcheck.CheckDraftChecks).
		return fmt.Errorf("delete %s: %d drafts to check, more than a transaction holds", sk, len(drafts))
	}
	var tx txn
	tx.add(condTarget, types.TransactWriteItem{Delete: &types.Delete{
		TableName: &s.table, Key: key(orgPK(orgID), sk), ConditionExpression: aws.String("attribute_exists(PK)"),
	}})
	tx.add("", extra...)
	for i, c := range drafts {
		seen, err := marshalValue(c.Seen)
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
		return errRefGone
	}
	for i := range drafts {
		if tx.failed(reasons, draftCheck(i)) {
			return &draftMoved{i}
		}
	}
	return err
}

// draftCheck names the check of the i-th draft of a delete.
func draftCheck(i int) string { return "draft#" + fmt.Sprint(i) }
