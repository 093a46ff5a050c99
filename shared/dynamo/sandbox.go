package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/sandbox"
)

// A sandbox's captured emails (sandbox.Mailer) are items of its own
// partition, one per email:
//
//	PK         ORG#<sandbox org id>
//	SK         SBXMAIL#<email id>   (a ULID: newest last)
//	expiresAt  sandbox.EmailKept after the capture (the table's TTL)
const sandboxEmailPrefix = "SBXMAIL#"

var _ sandbox.Store = (*Store)(nil)

// CaptureEmail keeps a sandbox's email until expires: one PutItem
// (sandbox.Store).
func (s *Store) CaptureEmail(ctx context.Context, orgID string, e sandbox.Email, expires time.Time) error {
	it, err := withKey(e, map[string]string{"PK": orgPK(orgID), "SK": sandboxEmailPrefix + e.EmailID})
	if err != nil {
		return err
	}
	it["expiresAt"] = num(expires.Unix())
	if _, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it}); err != nil {
		return fmt.Errorf("capture sandbox email: %w", err)
	}
	return nil
}

// CapturedEmails reads a page of a sandbox's captured emails, newest
// first, older than the email after: one Query of limit+1 items, the one
// more telling whether another page follows (sandbox.Store).
func (s *Store) CapturedEmails(ctx context.Context, orgID, after string, limit int) ([]sandbox.Email, bool, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, ScanIndexForward: aws.Bool(false), Limit: aws.Int32(int32(limit + 1)),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(sandboxEmailPrefix)}}
	if after != "" {
		in.ExclusiveStartKey = key(orgPK(orgID), sandboxEmailPrefix+after)
	}
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, false, fmt.Errorf("captured emails: %w", err)
	}
	emails := make([]sandbox.Email, 0, min(len(out.Items), limit))
	for _, it := range out.Items[:min(len(out.Items), limit)] {
		var e sandbox.Email
		if err := unmarshal(it, &e); err != nil {
			return nil, false, err
		}
		emails = append(emails, e)
	}
	return emails, len(out.Items) > limit, nil
}
