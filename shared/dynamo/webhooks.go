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

	"github.com/giftcampaign/service/shared/gifting"
)

// MaxWebhooks is how many endpoints an organization may have.
const MaxWebhooks = 20

// deliveryLogRetention is how long the deliveries log keeps an attempt.
const deliveryLogRetention = ChangeRetention

// CreateWebhook stores a new endpoint of orgID with the sealed secret
// seal returns for the endpoint's id (sealed for that id, so sealed once
// the id is known).
//
// Errors: CONFLICT when the organization has MaxWebhooks endpoints, and
// whatever seal returns.
func (s *Store) CreateWebhook(ctx context.Context, orgID string, in gifting.WebhookInput, seal func(webhookID string) (string, error)) (gifting.Webhook, error) {
	have, err := s.WebhookEndpoints(ctx, orgID)
	if err != nil {
		return gifting.Webhook{}, err
	}
	if len(have) >= MaxWebhooks {
		return gifting.Webhook{}, gifting.Errorf(gifting.CodeConflict, "an organization has at most %d webhook endpoints; delete one first", MaxWebhooks)
	}
	now := s.Now()
	e := gifting.WebhookEndpoint{Webhook: gifting.Webhook{
		WebhookID: s.NewID(), OrganizationID: orgID, URL: in.URL, Events: in.Events, Description: in.Description,
		Enabled: true, CreatedAt: now, UpdatedAt: now,
	}}
	if e.SealedSecret, err = seal(e.WebhookID); err != nil {
		return gifting.Webhook{}, err
	}
	if err := s.putWebhook(ctx, e, "attribute_not_exists(PK)", nil); err != nil {
		return gifting.Webhook{}, err
	}
	return e.Webhook, nil
}

// putWebhook writes e under cond (with values).
func (s *Store) putWebhook(ctx context.Context, e gifting.WebhookEndpoint, cond string, values item) error {
	it, err := withKey(e, map[string]string{"PK": orgPK(e.OrganizationID), "SK": webhookSK(e.WebhookID)})
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it,
		ConditionExpression: aws.String(cond), ExpressionAttributeValues: values})
	if isConditionFailed(err) {
		return errAddRace
	}
	if err != nil {
		return fmt.Errorf("put webhook: %w", err)
	}
	return nil
}

// WebhookEndpoint returns an endpoint of orgID with its secrets.
//
// Errors: NOT_FOUND.
func (s *Store) WebhookEndpoint(ctx context.Context, orgID, id string) (gifting.WebhookEndpoint, error) {
	return getOrNotFound[gifting.WebhookEndpoint](ctx, s, orgPK(orgID), webhookSK(id), gifting.NotFound("webhook", id))
}

// WebhookEndpoints returns every endpoint of orgID, oldest first (at most
// MaxWebhooks: one Query page).
func (s *Store) WebhookEndpoints(ctx context.Context, orgID string) ([]gifting.WebhookEndpoint, error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":p": str(webhookPrefix)},
	})
	if err != nil {
		return nil, fmt.Errorf("query webhooks: %w", err)
	}
	es := make([]gifting.WebhookEndpoint, len(out.Items))
	for i, it := range out.Items {
		if err := unmarshal(it, &es[i]); err != nil {
			return nil, err
		}
	}
	return es, nil
}

// UpdateWebhook lets change modify an endpoint of orgID and writes it,
// conditioned on the version read (a concurrent update makes it read and
// try again). It returns the endpoint as written.
//
// Errors: NOT_FOUND, and whatever change returns.
func (s *Store) UpdateWebhook(ctx context.Context, orgID, id string, change func(e *gifting.WebhookEndpoint) error) (gifting.WebhookEndpoint, error) {
	for attempt := 1; ; attempt++ {
		e, err := s.WebhookEndpoint(ctx, orgID, id)
		if err != nil {
			return e, err
		}
		seen, clear := e.UpdatedAt, e.ClearSecret
		if err := change(&e); err != nil {
			return e, err
		}
		if now := s.Now(); now.After(seen) {
			e.UpdatedAt = now
		} else {
			e.UpdatedAt = seen.Add(time.Millisecond)
		}
		cond, values := "updatedAt = :seen", item{":seen": str(seen.Format(time.RFC3339Nano))}
		if clear != "" {
			// The migration seals a clear secret without touching
			// updatedAt: this write, made from what was read before,
			// must not put the clear secret back.
			cond, values[":clear"] = cond+" AND secret = :clear", str(clear)
		}
		err = s.putWebhook(ctx, e, cond, values)
		if errors.Is(err, errAddRace) && attempt < maxAttempts {
			continue
		}
		return e, err
	}
}

// DeleteWebhook deletes an endpoint of orgID. Messages waiting for a retry
// to it are dropped when they come due.
//
// Errors: NOT_FOUND.
func (s *Store) DeleteWebhook(ctx context.Context, orgID, id string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(orgPK(orgID), webhookSK(id)),
		ConditionExpression: aws.String("attribute_exists(PK)")})
	if isConditionFailed(err) {
		return gifting.NotFound("webhook", id)
	}
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	return nil
}

// deliveryRef is the due ref of a delivery.
func deliveryRef(webhookID, msgID string) string { return webhookID + "/" + msgID }

// StartDelivery records that the message d is to be delivered to its
// endpoint, due at at (a lease from now, so a process that dies before its
// first attempt leaves it to the scheduler tick). created is false when
// the record already exists: the stream delivered the change twice, and
// whoever wrote it first delivers.
func (s *Store) StartDelivery(ctx context.Context, orgID string, d gifting.PendingDelivery, at time.Time) (created bool, err error) {
	pk, sk := orgPK(orgID), webhookDeliverySK(d.WebhookID, d.MessageID)
	attrs := dueAttrs(gifting.JobWebhookDelivery, deliveryRef(d.WebhookID, d.MessageID), pk, sk, at)
	attrs["PK"], attrs["SK"] = pk, sk
	it, err := withKey(d, attrs)
	if err != nil {
		return false, err
	}
	it["expiresAt"] = num(at.Add(ChangeRetention).Unix())
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)")})
	if isConditionFailed(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("start delivery: %w", err)
	}
	return true, nil
}

// PendingDelivery returns the delivery a due item's ref names.
//
// Errors: NOT_FOUND (it ended meanwhile).
func (s *Store) PendingDelivery(ctx context.Context, orgID, ref string) (gifting.PendingDelivery, error) {
	webhookID, msgID, _ := strings.Cut(ref, "/")
	var d struct {
		gifting.PendingDelivery
		Ended string `json:"ended"`
	}
	found, err := s.get(ctx, orgPK(orgID), webhookDeliverySK(webhookID, msgID), &d)
	if err != nil {
		return d.PendingDelivery, err
	}
	if !found || d.Ended != "" {
		return gifting.PendingDelivery{}, gifting.NotFound("delivery", ref)
	}
	return d.PendingDelivery, nil
}

// RecordAttempt logs attempt a of delivery d and, in the same transaction,
// either keeps d due at a.NextAttemptAt (a retry) or ends it.
func (s *Store) RecordAttempt(ctx context.Context, orgID string, d gifting.PendingDelivery, a gifting.Delivery) error {
	pk, sk := orgPK(orgID), webhookDeliverySK(d.WebhookID, d.MessageID)
	a.DeliveryID = s.NewID()
	logItem, err := withKey(a, map[string]string{"PK": pk, "SK": webhookLogSK(d.WebhookID, a.DeliveryID)})
	if err != nil {
		return err
	}
	logItem["expiresAt"] = num(a.At.Add(deliveryLogRetention).Unix())
	// An ended delivery stays (until its TTL) as a marker with no due
	// index entry and no body: the stream may give its change record
	// again, and StartDelivery must not start it a second time.
	next := types.TransactWriteItem{Update: &types.Update{TableName: &s.table, Key: key(pk, sk),
		UpdateExpression:          aws.String("SET ended = :at, attempts = :n REMOVE dueShard, dueAt, dueKind, dueRef, body"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: item{":at": str(a.At.UTC().Format(time.RFC3339Nano)), ":n": num(int64(a.Attempt))},
	}}
	if a.NextAttemptAt != nil {
		next = types.TransactWriteItem{Update: &types.Update{TableName: &s.table, Key: key(pk, sk),
			UpdateExpression:          aws.String("SET dueAt = :due, attempts = :n"),
			ConditionExpression:       aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: item{":due": str(dueSK(*a.NextAttemptAt, pk, sk)), ":n": num(int64(a.Attempt))},
		}}
	}
	items := []types.TransactWriteItem{{Put: &types.Put{TableName: &s.table, Item: logItem}}, next}
	if err := s.transactRetrying(ctx, items); err != nil {
		return fmt.Errorf("record delivery attempt: %w", err)
	}
	return nil
}

// Deliveries returns a page of an endpoint's attempts, newest first, and
// the cursor of the next page ("" after the last). The endpoint must exist.
//
// Errors: NOT_FOUND, VALIDATION_FAILED (limit, cursor).
func (s *Store) Deliveries(ctx context.Context, orgID, webhookID, cursor string, limit int) ([]gifting.Delivery, string, error) {
	if limit < 1 || limit > maxChangeLimit {
		return nil, "", gifting.Problems{"limit": "must be from 1 to 100"}.Err()
	}
	if _, err := s.WebhookEndpoint(ctx, orgID, webhookID); err != nil {
		return nil, "", err
	}
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
	ds := make([]gifting.Delivery, len(out.Items))
	for i, it := range out.Items {
		if err := unmarshal(it, &ds[i]); err != nil {
			return nil, "", err
		}
	}
	next := ""
	if out.LastEvaluatedKey != nil && len(ds) > 0 {
		next = ds[len(ds)-1].DeliveryID
	}
	return ds, next, nil
}
