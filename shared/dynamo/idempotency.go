package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// IdempotencyTTL is how long an idempotency record answers replays. After
// it the key may be used again for a new request.
const IdempotencyTTL = 24 * time.Hour

// idempotencyRecord is the stored first response to a key. It is written
// in the same transaction as the effect it records, so a request either
// took effect and has its record, or neither.
type idempotencyRecord struct {
	Hash      string    `json:"hash"`
	Status    int       `json:"status"`
	Body      string    `json:"body"`
	CreatedAt time.Time `json:"createdAt"`
	// ExpiresAt is the TTL attribute (epoch seconds). DynamoDB deletes
	// expired items lazily, so reads also treat an expired record as
	// absent.
	ExpiresAt int64 `json:"expiresAt"`
}

// idempotencyKey is the primary key of k's record.
func idempotencyKeyOf(orgID string, k gifting.IdempotencyKey) item {
	return key(orgPK(orgID), idempotencySK(k.Scope, k.Key))
}

// idempotencyPut is the transaction item that records body as the response
// to k. It fails with ConditionalCheckFailed when a live record exists,
// returning that record (ALL_OLD), so the loser of a race learns the
// winner's response without another read.
func (s *Store) idempotencyPut(orgID string, k gifting.IdempotencyKey, status int, body []byte) (types.TransactWriteItem, error) {
	now := s.Now()
	rec := idempotencyRecord{Hash: k.Hash, Status: status, Body: string(body), CreatedAt: now,
		ExpiresAt: now.Add(IdempotencyTTL).Unix()}
	it, err := marshal(rec)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	for name, v := range idempotencyKeyOf(orgID, k) {
		it[name] = v
	}
	return types.TransactWriteItem{Put: &types.Put{
		TableName:                           &s.table,
		Item:                                it,
		ConditionExpression:                 aws.String("attribute_not_exists(PK) OR expiresAt < :now"),
		ExpressionAttributeValues:           item{":now": num(now.Unix())},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}}, nil
}

// storedFor interprets a stored record for k (gifting.IdempotencyKey.Replay
// decides): nil when there is none (or it expired), the stored response
// when k's request is the same, and IDEMPOTENCY_KEY_REUSED when the key was
// used for another request.
func (s *Store) storedFor(k gifting.IdempotencyKey, it item) (*gifting.StoredResponse, error) {
	rec, err := idempotencyRecordOf(it)
	if err != nil {
		return nil, err
	}
	return k.Replay(rec, s.Now())
}

// idempotencyRecordOf decodes a record item, nil when there is none.
func idempotencyRecordOf(it item) (*gifting.IdempotencyRecord, error) {
	if len(it) == 0 {
		return nil, nil
	}
	var rec idempotencyRecord
	if err := unmarshal(it, &rec); err != nil {
		return nil, err
	}
	return &gifting.IdempotencyRecord{Hash: rec.Hash, Status: rec.Status, Body: []byte(rec.Body), ExpiresAt: rec.ExpiresAt}, nil
}

// IdempotentReplay reads k's record (strongly consistent): nil when k is
// nil (no key), new or expired, the stored response for the same request,
// and IDEMPOTENCY_KEY_REUSED for another request.
func (s *Store) IdempotentReplay(ctx context.Context, orgID string, k *gifting.IdempotencyKey) (*gifting.StoredResponse, error) {
	if k == nil {
		return nil, nil
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: idempotencyKeyOf(orgID, *k), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("get idempotency record: %w", err)
	}
	return s.storedFor(*k, out.Item)
}
