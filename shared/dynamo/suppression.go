package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/suppression"
)

// Suppression is an address an organization never mails again: it bounced
// for good, its owner complained, or its owner unsubscribed.
type Suppression struct {
	// Email is the address, lower-cased.
	Email string `json:"email"`
	// Reason says why, e.g. bounced, complained or unsubscribed.
	Reason       string    `json:"reason"`
	SuppressedAt time.Time `json:"suppressedAt"`
}

// Suppress adds email to the organization's suppression list, matched
// without regard to case. It is idempotent: suppressing an address again
// succeeds and keeps the first reason and time (an entry under the legacy
// key counts: the address is already suppressed).
func (s *Store) Suppress(ctx context.Context, orgID, email, reason string) error {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" || reason == "" {
		return fmt.Errorf("suppress: an address and a reason are required")
	}
	keyed, legacy, err := s.suppressionKeys(ctx, orgID, email)
	if err != nil {
		return err
	}
	attrs := map[string]string{"PK": orgPK(orgID), "SK": legacy}
	if keyed != "" {
		if _, found, err := s.getSuppression(ctx, orgID, "", legacy); err != nil || found {
			return err
		}
		attrs["SK"], attrs[hmacAttr] = keyed, hmacForm
	}
	it, err := withKey(Suppression{Email: email, Reason: reason, SuppressedAt: s.Now()}, attrs)
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	var exists *types.ConditionalCheckFailedException
	if errors.As(err, &exists) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("suppress an address: %w", err)
	}
	return nil
}

// IsSuppressed reports whether email is on the organization's suppression
// list, with one strongly consistent read (of both its keys while legacy
// ones may remain: one BatchGetItem).
func (s *Store) IsSuppressed(ctx context.Context, orgID, email string) (bool, error) {
	_, found, err := s.Suppression(ctx, orgID, email)
	return found, err
}

// The suppression list's reads and removal (shared/suppression decides).
var _ suppression.Store = (*Store)(nil)

// Suppression reads email's entry, strongly consistent
// (suppression.Store).
func (s *Store) Suppression(ctx context.Context, orgID, email string) (suppression.Entry, bool, error) {
	keyed, legacy, err := s.suppressionKeys(ctx, orgID, email)
	if err != nil {
		return suppression.Entry{}, false, err
	}
	sup, found, err := s.getSuppression(ctx, orgID, keyed, legacy)
	return suppression.Entry(sup), found, err
}

// getSuppression reads the entry under keyed or legacy ("" for none):
// one GetItem for one key, one BatchGetItem for both.
func (s *Store) getSuppression(ctx context.Context, orgID, keyed, legacy string) (Suppression, bool, error) {
	var sup Suppression
	if keyed == "" {
		found, err := s.get(ctx, orgPK(orgID), legacy, &sup)
		return sup, found, err
	}
	got, err := s.batchGet(ctx, []item{key(orgPK(orgID), keyed), key(orgPK(orgID), legacy)})
	if err != nil || len(got) == 0 {
		return sup, false, err
	}
	return sup, true, unmarshal(got[0], &sup)
}

// SuppressionPage reads a page of the list in key order (the keys are
// hashes of the addresses: no order a reader would recognise, but a
// stable one), after the key after (suppression.Store).
func (s *Store) SuppressionPage(ctx context.Context, orgID, after string, limit int) ([]suppression.Entry, string, error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":p": str(suppressionPrefix)},
		Limit:                     aws.Int32(int32(limit)),
	}
	if after != "" {
		in.ExclusiveStartKey = key(orgPK(orgID), suppressionPrefix+after)
	}
	res, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("query the suppression list: %w", err)
	}
	out := make([]suppression.Entry, 0, len(res.Items))
	for _, it := range res.Items {
		var sup Suppression
		if err := unmarshal(it, &sup); err != nil {
			return nil, "", err
		}
		out = append(out, suppression.Entry(sup))
	}
	next := ""
	if res.LastEvaluatedKey != nil {
		next = strings.TrimPrefix(attrS(res.LastEvaluatedKey, "SK"), suppressionPrefix)
	}
	return out, next, nil
}

// CommitUnsuppress deletes email's entry while its reason is still reason
// (suppression.Store), under its keyed key or else its legacy one.
func (s *Store) CommitUnsuppress(ctx context.Context, orgID, email, reason string) error {
	keyed, legacy, err := s.suppressionKeys(ctx, orgID, email)
	if err != nil {
		return err
	}
	for _, sk := range []string{keyed, legacy} {
		if sk == "" {
			continue
		}
		_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(orgPK(orgID), sk),
			ConditionExpression: aws.String("#r = :r"), ExpressionAttributeNames: map[string]string{"#r": "reason"},
			ExpressionAttributeValues: item{":r": str(reason)}})
		if isConditionFailed(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("remove a suppressed address: %w", err)
		}
		return nil
	}
	return suppression.ErrChanged
}
