package dynamo

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// PutRecipients writes rs as the store writes recipients (recipientItem),
// 25 to a BatchWriteItem, and sets the campaign's counters to what they
// count, so tests can fill a large campaign in mixed states quickly.
func (s *Store) PutRecipients(ctx context.Context, orgID, campaignID string, rs []recipient.Recipient) error {
	var writes []types.WriteRequest
	counts := gifting.NewStatusCounts()
	feedback := 0
	for _, r := range rs {
		it, err := s.recipientItem(orgID, recipient.Stored{Recipient: r, Version: 1})
		if err != nil {
			return err
		}
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		counts[r.Status]++
		if r.Feedback.Has() {
			feedback++
		}
	}
	if err := s.batchWrite(ctx, writes); err != nil {
		return err
	}
	if err := s.writeRecipientWords(ctx, orgID, rs, false, nil); err != nil {
		return err
	}
	m, err := marshal(counts)
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: key(orgPK(orgID), campaignSK(campaignID)),
		UpdateExpression: aws.String("SET totalRecipients = :n, liveData.statusCounts = :c, liveData.feedbackCount = :f"),
		ExpressionAttributeValues: item{":n": num(int64(len(rs))), ":c": &types.AttributeValueMemberM{Value: m},
			":f": num(int64(feedback))}})
	return err
}

// UnkeyStatuses removes the status keys of a campaign's recipients and the
// campaign's mark, as the code before status keys left them.
func (s *Store) UnkeyStatuses(ctx context.Context, orgID, campaignID string) error {
	if err := s.updateRecipients(ctx, orgID, campaignID, func(item) (string, item) { return "REMOVE OPK, OSK", nil }); err != nil {
		return err
	}
	return s.setCampaignMark(ctx, orgID, campaignID, campaignStatusIndexed, true)
}

// ForgetStatusMark removes (forget) or sets the campaign's status mark:
// without it, its pages read the Slim partition again (the yardstick of
// the status partitions' answers).
func (s *Store) ForgetStatusMark(ctx context.Context, orgID, campaignID string, forget bool) error {
	return s.setCampaignMark(ctx, orgID, campaignID, campaignStatusIndexed, forget)
}

// ForgetSearchMark removes (forget) or sets the campaign's search mark:
// without it, its searches read the Slim partition (the yardstick of the
// word entries' answers).
func (s *Store) ForgetSearchMark(ctx context.Context, orgID, campaignID string, forget bool) error {
	return s.setCampaignMark(ctx, orgID, campaignID, campaignSearchIndexed, forget)
}

// DropSearchEntries deletes the word entries of a campaign's recipients,
// as the code before them left the table.
func (s *Store) DropSearchEntries(ctx context.Context, orgID, campaignID string) error {
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{TableName: &s.table, KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: item{":pk": str(recipientWordsPK(orgID, campaignID))}})
	var writes []types.WriteRequest
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, it := range out.Items {
			writes = append(writes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key(attrS(it, "PK"), attrS(it, "SK"))}})
		}
	}
	return s.batchWrite(ctx, writes)
}

// updateRecipients applies to each recipient of a campaign (its Slim entry
// e) the update expression, with its values, that update makes of e.
func (s *Store) updateRecipients(ctx context.Context, orgID, campaignID string, update func(e item) (string, item)) error {
	p := dynamodb.NewQueryPaginator(s.db, s.slimQuery(recipientsLPK(orgID, campaignID), true))
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, e := range out.Items {
			expr, values := update(e)
			if _, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: key(orgPK(orgID), attrS(e, "SK")),
				UpdateExpression: aws.String(expr), ExpressionAttributeValues: values}); err != nil {
				return err
			}
		}
	}
	return nil
}

// setCampaignMark removes (forget) or sets a campaign's mark attr.
func (s *Store) setCampaignMark(ctx context.Context, orgID, campaignID, attr string, forget bool) error {
	expr, values := "SET "+attr+" = :one", item{":one": str("1")}
	if forget {
		expr, values = "REMOVE "+attr, nil
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: key(orgPK(orgID), campaignSK(campaignID)),
		UpdateExpression: aws.String(expr), ExpressionAttributeValues: values})
	return err
}

// RewriteRecipient writes r as every write of a recipient does
// (recipientItem), without a condition.
func (s *Store) RewriteRecipient(ctx context.Context, orgID string, r recipient.Recipient) error {
	it, err := s.recipientItem(orgID, recipient.Stored{Recipient: r, Version: 2})
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it})
	return err
}

// HoldMatches sets how many matches a filtered recipient search holds
// (heldMatches) until the test ends; the test must not run in parallel.
func HoldMatches(t testing.TB, n int) {
	before := heldMatches
	heldMatches = n
	t.Cleanup(func() { heldMatches = before })
}
