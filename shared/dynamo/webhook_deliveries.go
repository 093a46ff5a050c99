package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/webhook"
)

// deliveryLogRetention is how long the deliveries log keeps an attempt.
const deliveryLogRetention = webhook.Retention

// deliveryItem is a delivery under way (WHMSG#<webhook>#<message> under
// the organization), due (the Due index) until it ends. An ended delivery
// stays, until its TTL, as a marker with no due index entry and no body:
// the stream may give its change record again, and StartDelivery must not
// start it a second time.
type deliveryItem struct {
	WebhookID string `json:"webhookId"`
	MessageID string `json:"messageId"`
	Type      string `json:"type"`
	Body      string `json:"body"`
	Attempts  int    `json:"attempts"`
	// Ended is when the delivery ended, "" while it is under way.
	Ended string `json:"ended,omitempty"`
}

func (it deliveryItem) delivery() webhook.Delivery {
	return webhook.Delivery{WebhookID: it.WebhookID, MessageID: it.MessageID, Type: it.Type, Body: []byte(it.Body), Attempts: it.Attempts}
}

// attemptItem is an attempt in an endpoint's deliveries log
// (WHLOG#<webhook>#<deliveryId> under the organization).
type attemptItem struct {
	DeliveryID    string     `json:"deliveryId"`
	MessageID     string     `json:"messageId"`
	Type          string     `json:"type"`
	Attempt       int        `json:"attempt"`
	StatusCode    int        `json:"statusCode"`
	DurationMs    int64      `json:"durationMs"`
	Error         string     `json:"error,omitempty"`
	Outcome       string     `json:"outcome"`
	At            time.Time  `json:"at"`
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
}

func attemptItemOf(a webhook.Attempt) attemptItem {
	return attemptItem{DeliveryID: a.DeliveryID, MessageID: a.MessageID, Type: a.Type, Attempt: a.Number, StatusCode: a.StatusCode,
		DurationMs: a.Duration.Milliseconds(), Error: a.Error, Outcome: string(a.Outcome), At: a.At, NextAttemptAt: a.NextAttemptAt}
}

func (it attemptItem) attempt() webhook.Attempt {
	return webhook.Attempt{DeliveryID: it.DeliveryID, MessageID: it.MessageID, Type: it.Type, Number: it.Attempt, StatusCode: it.StatusCode,
		Duration: time.Duration(it.DurationMs) * time.Millisecond, Error: it.Error, Outcome: webhook.Outcome(it.Outcome), At: it.At,
		NextAttemptAt: it.NextAttemptAt}
}

// StartDelivery records delivery d, due at due (webhook.Store); one that
// exists already is webhook.ErrStarted.
func (s *Store) StartDelivery(ctx context.Context, orgID string, d webhook.Delivery, due time.Time) error {
	pk, sk := orgPK(orgID), webhookDeliverySK(d.WebhookID, d.MessageID)
	attrs := dueAttrs(webhook.JobDelivery, webhook.DeliveryRef(d.WebhookID, d.MessageID), pk, sk, due)
	attrs["PK"], attrs["SK"] = pk, sk
	it, err := withKey(deliveryItem{WebhookID: d.WebhookID, MessageID: d.MessageID, Type: d.Type, Body: string(d.Body), Attempts: d.Attempts}, attrs)
	if err != nil {
		return err
	}
	it["expiresAt"] = num(due.Add(webhook.Retention).Unix())
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")})
	if isConditionFailed(err) {
		return webhook.ErrStarted
	}
	if err != nil {
		return fmt.Errorf("start delivery: %w", err)
	}
	return nil
}

// Delivery reads the delivery of message msgID to endpoint webhookID, or
// webhook.ErrNoDelivery when it ended (or never was).
func (s *Store) Delivery(ctx context.Context, orgID, webhookID, msgID string) (webhook.Delivery, error) {
	var it deliveryItem
	found, err := s.get(ctx, orgPK(orgID), webhookDeliverySK(webhookID, msgID), &it)
	if err != nil {
		return webhook.Delivery{}, err
	}
	if !found || it.Ended != "" {
		return webhook.Delivery{}, webhook.ErrNoDelivery
	}
	return it.delivery(), nil
}

// RecordAttempt logs attempt a of delivery d and, in the same transaction,
// either keeps d due at a.NextAttemptAt (a retry) or ends it.
func (s *Store) RecordAttempt(ctx context.Context, orgID string, d webhook.Delivery, a webhook.Attempt) error {
	pk, sk := orgPK(orgID), webhookDeliverySK(d.WebhookID, d.MessageID)
	logItem, err := withKey(attemptItemOf(a), map[string]string{"PK": pk, "SK": webhookLogSK(d.WebhookID, a.DeliveryID)})
	if err != nil {
		return err
	}
	logItem["expiresAt"] = num(a.At.Add(deliveryLogRetention).Unix())
	next := types.TransactWriteItem{Update: &types.Update{TableName: &s.table, Key: key(pk, sk),
		UpdateExpression:          aws.String("SET ended = :at, attempts = :n REMOVE dueShard, dueAt, dueKind, dueRef, body"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: item{":at": str(a.At.UTC().Format(time.RFC3339Nano)), ":n": num(int64(a.Number))},
	}}
	if a.NextAttemptAt != nil {
		next = types.TransactWriteItem{Update: &types.Update{TableName: &s.table, Key: key(pk, sk),
			UpdateExpression:          aws.String("SET dueAt = :due, attempts = :n"),
			ConditionExpression:       aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: item{":due": str(dueSK(*a.NextAttemptAt, pk, sk)), ":n": num(int64(a.Number))},
		}}
	}
	items := []types.TransactWriteItem{{Put: &types.Put{TableName: &s.table, Item: logItem}}, next}
	if err := s.transactRetrying(ctx, items); err != nil {
		return fmt.Errorf("record delivery attempt: %w", err)
	}
	return nil
}

// Attempts reads a page of an endpoint's attempts, newest first, after
// the attempt cursor, and the cursor of the next page ("" after the last).
func (s *Store) Attempts(ctx context.Context, orgID, webhookID, cursor string, limit int) ([]webhook.Attempt, string, error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":p": str(webhookLogPrefix(webhookID))},
		ScanIndexForward:          aws.Bool(false),
		Limit:                     aws.Int32(int32(limit)),
	}
	if cursor != "" {
		in.ExclusiveStartKey = key(orgPK(orgID), webhookLogSK(webhookID, cursor))
	}
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("query deliveries: %w", err)
	}
	as := make([]webhook.Attempt, len(out.Items))
	for i, v := range out.Items {
		var it attemptItem
		if err := unmarshal(v, &it); err != nil {
			return nil, "", err
		}
		as[i] = it.attempt()
	}
	next := ""
	if out.LastEvaluatedKey != nil && len(as) > 0 {
		next = as[len(as)-1].DeliveryID
	}
	return as, next, nil
}
