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
// succeeds and keeps the first reason and time.
func (s *Store) Suppress(ctx context.Context, orgID, email, reason string) error {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" || reason == "" {
		return fmt.Errorf("suppress: an address and a reason are required")
	}
	it, err := withKey(Suppression{Email: email, Reason: reason, SuppressedAt: s.Now()},
		map[string]string{"PK": orgPK(orgID), "SK": suppressionSK(email)})
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
// list, with one strongly consistent read.
func (s *Store) IsSuppressed(ctx context.Context, orgID, email string) (bool, error) {
	var sup Suppression
	return s.get(ctx, orgPK(orgID), suppressionSK(email), &sup)
}
