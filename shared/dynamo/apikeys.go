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

// CreateAPIKey makes a new random key for a user of org, holding every
// scope, and returns it with its record (the operator's keys: admin CLI,
// seed). The key is returned only here; the store keeps its hash. It
// returns access.ErrNoOrg when the organization does not exist.
func (s *Store) CreateAPIKey(ctx context.Context, orgID, userID, name string) (string, gifting.APIKey, error) {
	return s.CreateKey(ctx, gifting.APIKey{OrgID: orgID, UserID: userID, Name: name})
}

// CreateKey makes a new random key with k's organization, user, name,
// scopes and creator, and returns it with its record (access.Store): the
// key is returned only here, the store keeps its hash and its first
// characters (Prefix). access.ErrNoOrg when the organization does not
// exist.
func (s *Store) CreateKey(ctx context.Context, k gifting.APIKey) (string, gifting.APIKey, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", gifting.APIKey{}, fmt.Errorf("random key: %w", err)
	}
	prefix := gifting.APIKeyPrefixOf(k.OrgID) // gcs_test_ for a sandbox's key
	secret := prefix + base64.RawURLEncoding.EncodeToString(raw)
	k.KeyID, k.CreatedAt, k.Prefix = s.NewID(), s.Now(), secret[:len(prefix)+gifting.APIKeyShownChars]
	rec := apiKeyItem{APIKey: k, Hash: gifting.HashAPIKey(secret)}
	global, err := withKey(rec, map[string]string{"PK": apiKeyPK(rec.Hash), "SK": apiKeySK})
	if err != nil {
		return "", gifting.APIKey{}, err
	}
	ref, err := withKey(rec, map[string]string{"PK": orgPK(k.OrgID), "SK": apiKeyRefSK(rec.KeyID)})
	if err != nil {
		return "", gifting.APIKey{}, err
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{
			TableName:           &s.table,
			Key:                 key(orgPK(k.OrgID), profileSK),
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
	k, err := s.KeyBySecret(ctx, secret)
	return gifting.Principal{OrgID: k.OrgID, UserID: k.UserID, KeyID: k.KeyID, Scopes: k.Scopes}, err
}

// KeyBySecret reads the live key whose secret this is, with when it was
// last used (access.Store); access.ErrUnknownKey for an unknown or
// revoked key.
func (s *Store) KeyBySecret(ctx context.Context, secret string) (gifting.APIKey, error) {
	var rec apiKeyItem
	found, err := s.get(ctx, apiKeyPK(gifting.HashAPIKey(secret)), apiKeySK, &rec)
	if err != nil {
		return gifting.APIKey{}, err
	}
	if !found || rec.RevokedAt != nil {
		return gifting.APIKey{}, access.ErrUnknownKey
	}
	return rec.APIKey, nil
}

// TouchKey records that the key of secret was used at, unless a use at or
// after since is recorded already (another process's): one conditional
// UpdateItem of the key's global item (access.Store).
func (s *Store) TouchKey(ctx context.Context, secret string, at, since time.Time) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table,
		Key:                       key(apiKeyPK(gifting.HashAPIKey(secret)), apiKeySK),
		UpdateExpression:          aws.String("SET lastUsedAt = :at"),
		ConditionExpression:       aws.String("attribute_exists(PK) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :since)"),
		ExpressionAttributeValues: item{":at": str(at.Format(time.RFC3339Nano)), ":since": str(since.Format(time.RFC3339Nano))}})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("touch api key: %w", err)
	}
	return nil
}

// Keys reads every key of org, oldest first, with when each was last used
// (access.Store): one Query of the organization's key records, then one
// BatchGetItem of their global items (which the uses update), eventually
// consistent (a list shown to a person).
func (s *Store) Keys(ctx context.Context, orgID string) ([]gifting.APIKey, error) {
	items, err := s.queryPrefix(ctx, orgPK(orgID), apiKeyRefPrefix, true)
	if err != nil {
		return nil, err
	}
	recs := make([]apiKeyItem, len(items))
	keys := make([]item, 0, len(items))
	for i, it := range items {
		if err := unmarshal(it, &recs[i]); err != nil {
			return nil, err
		}
		keys = append(keys, key(apiKeyPK(recs[i].Hash), apiKeySK))
	}
	used := map[string]*time.Time{}
	for start := 0; start < len(keys); start += maxBatchGet {
		got, err := s.batchGetAs(ctx, keys[start:min(start+maxBatchGet, len(keys))], false)
		if err != nil {
			return nil, err
		}
		for _, it := range got {
			var g apiKeyItem
			if err := unmarshal(it, &g); err != nil {
				return nil, err
			}
			used[g.KeyID] = g.LastUsedAt
		}
	}
	out := make([]gifting.APIKey, len(recs))
	for i, r := range recs {
		out[i] = r.APIKey
		out[i].LastUsedAt = used[r.KeyID]
	}
	return out, nil
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
