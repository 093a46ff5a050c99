package dynamo

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// A suppressed address is stored under a key that must let the service
// find it again from the address, without letting a reader of a table
// export find the address from the key. A plain SHA-256 of an address
// does the first, not the second: anyone can hash a list of likely
// addresses and compare. So the key is an HMAC under a secret of the
// stack's (the suppression key), which a table export does not hold:
//
//	SUPPRESS#<hex HMAC-SHA256(suppression key, orgID "\x00" hex SHA-256(address))>
//
// with the attribute hmac=v1, keyed per organization (the same address has unrelated keys in two
// organizations). The HMAC is taken over the address's SHA-256 rather
// than the address so the migration step (suppressionKeysStep) can rekey
// an item written before (SUPPRESS#<hex SHA-256>) from its key alone,
// including one whose address erasure has already removed.
//
// The suppression key is 32 random bytes, sealed (shared/sealed: envelope
// encryption under the stack's KMS key, in its own encryption context) in
// one item of the table, made by the first function that needs it and
// opened once per process (docs/security.md).

// SuppressionKeySealer seals and opens the suppression key
// (shared/sealed's Box over the KMS key in kmskey.SuppressionContext).
type SuppressionKeySealer interface {
	Seal(ctx context.Context, plaintext []byte, owner string) (string, error)
	Open(ctx context.Context, sealed, owner string) ([]byte, error)
}

// WithSuppressionKey gives the store the sealer of the stack's suppression
// key: suppressions are then keyed by the HMAC above, and the legacy keys
// are still read until the migration step has rekeyed them. A store
// without it (a test's bare store, a tool without KMS) keys them the
// legacy way, as before the suppression key existed.
func WithSuppressionKey(x SuppressionKeySealer) Option {
	return func(s *Store) { s.supKey = &suppressionKey{sealer: x} }
}

// suppressionKey is the store's suppression key, opened at most once.
type suppressionKey struct {
	sealer SuppressionKeySealer
	mu     sync.Mutex
	clear  []byte
}

// The suppression key's item, and the owner its sealed value is bound to.
const (
	stackPK           = "STACK"
	suppressionKeySK  = "SUPPRESSIONKEY"
	suppressionKeyFor = "suppression-key"
	// hmacAttr marks an entry under the keyed key (its value, the form);
	// an entry without it is under the legacy key. The two keys have the
	// same shape, so the list's cursor stays the 64 hex digits it was.
	hmacAttr = "hmac"
	hmacForm = "v1"
)

// suppressionKeyItem is what the item holds: the sealed key.
type suppressionKeyItem struct {
	Sealed string `json:"sealed"`
}

// key returns the clear suppression key: the one this store opened, or
// the table's (opened), or a new one when the table has none (made once:
// of concurrent makers, the first put wins and the others open it).
func (k *suppressionKey) key(ctx context.Context, s *Store) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.clear != nil {
		return k.clear, nil
	}
	for attempt := 0; attempt < 2; attempt++ {
		var it suppressionKeyItem
		found, err := s.get(ctx, stackPK, suppressionKeySK, &it)
		if err != nil {
			return nil, err
		}
		if found {
			clear, err := k.sealer.Open(ctx, it.Sealed, suppressionKeyFor)
			if err != nil {
				return nil, fmt.Errorf("open the suppression key: %w", err)
			}
			k.clear = clear
			return clear, nil
		}
		made, err := k.make(ctx, s)
		if err != nil || made != nil {
			k.clear = made
			return made, err
		}
	}
	return nil, errors.New("the suppression key was neither found nor made")
}

// make puts a new suppression key, nil (and no error) when another
// process's put came first.
func (k *suppressionKey) make(ctx context.Context, s *Store) ([]byte, error) {
	clear := make([]byte, 32)
	if _, err := rand.Read(clear); err != nil {
		return nil, err
	}
	sealed, err := k.sealer.Seal(ctx, clear, suppressionKeyFor)
	if err != nil {
		return nil, fmt.Errorf("seal the suppression key: %w", err)
	}
	it, err := withKey(suppressionKeyItem{Sealed: sealed}, map[string]string{"PK": stackPK, "SK": suppressionKeySK})
	if err != nil {
		return nil, err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it,
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	if isConditionFailed(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("put the suppression key: %w", err)
	}
	return clear, nil
}

// suppressionKeys returns the sort keys email may be suppressed under in
// org: the keyed one ("" for a store without the suppression key) and the
// legacy one.
func (s *Store) suppressionKeys(ctx context.Context, orgID, email string) (keyed, legacy string, err error) {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	digest := hex.EncodeToString(sum[:])
	legacy = suppressionPrefix + digest
	if s.supKey == nil {
		return "", legacy, nil
	}
	keyed, err = s.keyedSuppressionSK(ctx, orgID, digest)
	return keyed, legacy, err
}

// keyedSuppressionSK is the keyed sort key of the address whose SHA-256
// is digest (hex) in org.
func (s *Store) keyedSuppressionSK(ctx context.Context, orgID, digest string) (string, error) {
	k, err := s.supKey.key(ctx, s)
	if err != nil {
		return "", err
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(orgID + "\x00" + digest))
	return suppressionPrefix + hex.EncodeToString(m.Sum(nil)), nil
}

// isLegacySuppression reports whether the suppression item it is under
// its legacy key.
func isLegacySuppression(it item) bool { return it[hmacAttr] == nil }
