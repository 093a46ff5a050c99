package dynamo

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// apiKeyPrefix marks the service's keys so a leaked one is recognisable by
// secret scanners.
const apiKeyPrefix = "gcs_"

// apiKeyLength is the length of every key CreateAPIKey makes: the prefix
// and 32 random bytes in unpadded base64url.
var apiKeyLength = len(apiKeyPrefix) + base64.RawURLEncoding.EncodedLen(32)

// WellFormedAPIKey reports whether s has the shape of the keys CreateAPIKey
// makes, so anything else can be refused without a read.
func WellFormedAPIKey(s string) bool {
	if len(s) != apiKeyLength || !strings.HasPrefix(s, apiKeyPrefix) {
		return false
	}
	_, err := base64.RawURLEncoding.Strict().DecodeString(s[len(apiKeyPrefix):])
	return err == nil
}

// HashAPIKey returns the hex SHA-256 of an API key: the only form in which a
// key is stored. Keys carry 256 random bits, so a fast hash is enough.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// apiKeyItem is the global item that resolves a key hash.
type apiKeyItem struct {
	gifting.APIKey
	Hash string `json:"hash"`
}

// CreateAPIKey makes a new random key for a user of org and returns it with
// its record. The key is returned only here; the store keeps its hash.
// It returns NOT_FOUND when the organization does not exist.
func (s *Store) CreateAPIKey(ctx context.Context, orgID, userID, name string) (string, gifting.APIKey, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", gifting.APIKey{}, fmt.Errorf("random key: %w", err)
	}
	secret := apiKeyPrefix + base64.RawURLEncoding.EncodeToString(raw)
	rec := apiKeyItem{
		APIKey: gifting.APIKey{KeyID: s.NewID(), OrgID: orgID, UserID: userID, Name: name, CreatedAt: s.Now()},
		Hash:   HashAPIKey(secret),
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
		return "", gifting.APIKey{}, gifting.NotFound("organization", orgID)
	}
	if err != nil {
		return "", gifting.APIKey{}, fmt.Errorf("create api key: %w", err)
	}
	return secret, rec.APIKey, nil
}

// ResolveAPIKey returns the principal of a key. It returns UNAUTHORIZED for
// an unknown or revoked key.
func (s *Store) ResolveAPIKey(ctx context.Context, secret string) (gifting.Principal, error) {
	var rec apiKeyItem
	found, err := s.get(ctx, apiKeyPK(HashAPIKey(secret)), apiKeySK, &rec)
	if err != nil {
		return gifting.Principal{}, err
	}
	if !found || rec.RevokedAt != nil {
		return gifting.Principal{}, gifting.Errorf(gifting.CodeUnauthorized, "Invalid or missing API key")
	}
	return gifting.Principal{OrgID: rec.OrgID, UserID: rec.UserID, KeyID: rec.KeyID}, nil
}

// RevokeAPIKey revokes a key of org by its id. Revoking twice is harmless.
// It returns NOT_FOUND when org has no such key.
func (s *Store) RevokeAPIKey(ctx context.Context, orgID, keyID string) (gifting.APIKey, error) {
	var rec apiKeyItem
	found, err := s.get(ctx, orgPK(orgID), apiKeyRefSK(keyID), &rec)
	if err != nil {
		return gifting.APIKey{}, err
	}
	if !found {
		return gifting.APIKey{}, gifting.NotFound("API key", keyID)
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
