package dynamo

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
)

// apiKeyItem is the global item that resolves a key hash.
type apiKeyItem struct {
	gifting.APIKey
	Hash string `json:"hash"`
}

// CreateAPIKey makes a new random key for a user of org and returns it with
// its record. The key is returned only here; the store keeps its hash.
// It returns access.ErrNoOrg when the organization does not exist.
func (s *Store) CreateAPIKey(ctx context.Context, orgID, userID, name string) (string, gifting.APIKey, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", gifting.APIKey{}, fmt.Errorf("random key: %w", err)
	}
	secret := gifting.APIKeyPrefix + base64.RawURLEncoding.EncodeToString(raw)
	rec := apiKeyItem{
		APIKey: gifting.APIKey{KeyID: s.NewID(), OrgID: orgID, UserID: userID, Name: name, CreatedAt: s.Now()},
		Hash:   gifting.HashAPIKey(secret),
	}
	global, err := withKey(rec, map[string]string{"PK": apiKeyPK(rec.Hash), "SK": apiKeySK})
	if err != nil {
		return "", gifting.APIKey{}, err
	}
	ref, err := withKey(rec, map[string]string{"PK": orgPK(orgID), "SK": apiKeyRefSK(rec.KeyID)})
	if err != nil {
		return "", gifting.APIKey{}, err
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{
			TableName:           &s.table,
			Key:                 key(orgPK(orgID), profileSK),
			ConditionExpression: aws.String("attribute_exists(PK)"),
		}},
		{Put: &types.Put{TableName: &s.table, Item: global, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		{Put: &types.Put{TableName: &s.table, Item: ref}},
	}})
	if reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed" {
		return "", gifting.APIKey{}, access.ErrNoOrg
	}
	if err != nil {
		return "", gifting.APIKey{}, fmt.Errorf("create api key: %w", err)
	}
	return secret, rec.APIKey, nil
}

// ResolveAPIKey returns the principal of a key. It returns
// access.ErrUnknownKey for an unknown or revoked key.
func (s *Store) ResolveAPIKey(ctx context.Context, secret string) (gifting.Principal, error) {
	var rec apiKeyItem
	found, err := s.get(ctx, apiKeyPK(gifting.HashAPIKey(secret)), apiKeySK, &rec)
	if err != nil {
		return gifting.Principal{}, err
	}
	if !found || rec.RevokedAt != nil {
		return gifting.Principal{}, access.ErrUnknownKey
	}
	return gifting.Principal{OrgID: rec.OrgID, UserID: rec.UserID, KeyID: rec.KeyID}, nil
}

// RevokeAPIKey revokes a key of org by its id. Revoking twice is harmless.
// It returns access.ErrNoKey when org has no such key.
func (s *Store) RevokeAPIKey(ctx context.Context, orgID, keyID string) (gifting.APIKey, error) {
	var rec apiKeyItem
	found, err := s.get(ctx, orgPK(orgID), apiKeyRefSK(keyID), &rec)
	if err != nil {
		return gifting.APIKey{}, err
	}
	if !found {
		return gifting.APIKey{}, access.ErrNoKey
	}
	if rec.RevokedAt != nil {
		return rec.APIKey, nil
	}
	now := s.Now()
	set := func(pk, sk string) types.TransactWriteItem {
		return types.TransactWriteItem{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       key(pk, sk),
			UpdateExpression:          aws.String("SET revokedAt = :now"),
			ExpressionAttributeValues: item{":now": str(now.Format(time.RFC3339Nano))},
		}}
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		set(apiKeyPK(rec.Hash), apiKeySK),
		set(orgPK(orgID), apiKeyRefSK(keyID)),
	}})
	if err != nil {
		return gifting.APIKey{}, fmt.Errorf("revoke api key: %w", err)
	}
	rec.RevokedAt = &now
	return rec.APIKey, nil
}
