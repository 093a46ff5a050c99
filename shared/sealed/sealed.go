// Package sealed encrypts the secrets the service stores (webhook signing
// secrets, and any later one) with envelope encryption: a data key from a
// key provider (AWS KMS in a deployment, the local KMS emulator locally)
// encrypts each secret with AES-256-GCM, and the data key, encrypted under
// the provider's master key, is stored beside the ciphertext. The
// ciphertext is bound to its owner (e.g. an organization and a webhook)
// through GCM's additional data, so a sealed value copied onto another
// owner's item does not open.
//
// A Box keeps its data keys in memory for a bounded time and number of
// uses, so that a burst of seals asks the provider for one data key, and a
// burst of opens (a webhook delivery burst) asks it to decrypt each stored
// data key once, not once a message.
package sealed

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/sync/singleflight"
)

// KeyProvider makes and opens data keys under a master key that never
// leaves it (a KMS key).
type KeyProvider interface {
	// GenerateDataKey returns a new 256-bit data key, in clear and
	// encrypted under the master key.
	GenerateDataKey(ctx context.Context) (plaintext, encrypted []byte, err error)
	// Decrypt returns the clear data key that encrypted holds. A key the
	// provider refuses as not its own or damaged is ErrUnopenable.
	Decrypt(ctx context.Context, encrypted []byte) ([]byte, error)
}

// ErrUnopenable is a sealed value that can never be opened as given: not
// in the sealed format, damaged, sealed for another owner, or its data key
// refused by the provider. Trying again does not help; an unreachable
// provider is another error.
var ErrUnopenable = errors.New("sealed value cannot be opened")

// prefix starts every sealed value: the format's version. A stored secret
// without it is a clear one written before sealing.
const prefix = "sealed.v1."

// Limits bound how long a Box keeps data keys in memory.
type Limits struct {
	// SealKeyAge and SealKeyUses bound how long, and for how many seals,
	// one data key keeps encrypting before the Box asks for a new one.
	SealKeyAge  time.Duration
	SealKeyUses int
	// OpenKeyAge bounds how long a decrypted data key stays cached, and
	// OpenKeys how many are; the least recently used goes first.
	OpenKeyAge time.Duration
	OpenKeys   int
}

// DefaultLimits keep a sealing key for 5 minutes or 1,000 seals and a
// decrypted key for 15 minutes, up to 1,000 of them: a disabled or
// deleted master key stops every process within 15 minutes, and one
// random 96-bit nonce per seal stays far below GCM's limit of 2³² messages
// a key.
var DefaultLimits = Limits{SealKeyAge: 5 * time.Minute, SealKeyUses: 1000, OpenKeyAge: 15 * time.Minute, OpenKeys: 1000}

// Box seals and opens values with data keys of one provider. It is safe
// for concurrent use.
type Box struct {
	provider KeyProvider
	limits   Limits

	mu      sync.Mutex
	sealKey *sealKey

	opened  *expirable.LRU[string, cipher.AEAD]
	opening singleflight.Group

	generated, decrypted atomic.Int64
}

// sealKey is the data key seals use now.
type sealKey struct {
	aead      cipher.AEAD
	encrypted []byte
	born      time.Time
	uses      int
}

// New returns a Box over provider with limits (DefaultLimits when zero).
func New(provider KeyProvider, limits Limits) *Box {
	if limits == (Limits{}) {
		limits = DefaultLimits
	}
	return &Box{provider: provider, limits: limits,
		opened: expirable.NewLRU[string, cipher.AEAD](limits.OpenKeys, nil, limits.OpenKeyAge)}
}

// Stats counts the provider calls a Box made: data keys generated and
// decrypted.
type Stats struct {
	Generated, Decrypted int64
}

// Stats returns the provider calls made so far.
func (b *Box) Stats() Stats {
	return Stats{Generated: b.generated.Load(), Decrypted: b.decrypted.Load()}
}

// IsSealed reports whether stored is in the sealed format (rather than a
// clear value written before sealing).
func IsSealed(stored string) bool { return strings.HasPrefix(stored, prefix) }

// Seal encrypts plaintext for owner, which must be given again to open
// it: "sealed.v1.<encrypted data key>.<nonce and ciphertext>", both in
// unpadded URL-safe base64.
func (b *Box) Seal(ctx context.Context, plaintext []byte, owner string) (string, error) {
	aead, encrypted, err := b.currentKey(ctx)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plaintext)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal: %w", err)
	}
	out := aead.Seal(nonce, nonce, plaintext, additionalData(owner))
	enc := base64.RawURLEncoding
	return prefix + enc.EncodeToString(encrypted) + "." + enc.EncodeToString(out), nil
}

// Open decrypts a value Seal made for owner.
//
// Errors: ErrUnopenable (wrapped), or the provider's error when it could
// not be reached.
func (b *Box) Open(ctx context.Context, sealed, owner string) ([]byte, error) {
	encrypted, box, err := parse(sealed)
	if err != nil {
		return nil, err
	}
	aead, err := b.openKey(ctx, encrypted)
	if err != nil {
		return nil, err
	}
	if len(box) < aead.NonceSize() {
		return nil, fmt.Errorf("%w: too short", ErrUnopenable)
	}
	plain, err := aead.Open(nil, box[:aead.NonceSize()], box[aead.NonceSize():], additionalData(owner))
	if err != nil {
		// GCM says no more than this: the ciphertext or the owner differ.
		return nil, fmt.Errorf("%w: it was sealed for another owner, or changed", ErrUnopenable)
	}
	return plain, nil
}

// parse splits a sealed value into its encrypted data key and its nonce
// and ciphertext.
func parse(sealed string) (encrypted, box []byte, err error) {
	rest, ok := strings.CutPrefix(sealed, prefix)
	key, data, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 {
		return nil, nil, fmt.Errorf("%w: not a sealed value", ErrUnopenable)
	}
	enc := base64.RawURLEncoding
	if encrypted, err = enc.DecodeString(key); err != nil || len(encrypted) == 0 {
		return nil, nil, fmt.Errorf("%w: bad data key", ErrUnopenable)
	}
	if box, err = enc.DecodeString(data); err != nil {
		return nil, nil, fmt.Errorf("%w: bad ciphertext", ErrUnopenable)
	}
	return encrypted, box, nil
}

// additionalData is the GCM additional data of owner: the format's name
// too, so that a value of another format or purpose never opens as one of
// this.
func additionalData(owner string) []byte { return []byte(prefix + owner) }

// currentKey returns the data key seals use now, asking the provider for a
// new one when the current one has reached its age or uses. The lock is
// held across the provider call: concurrent seals then wait for the one
// new key rather than each generate their own.
func (b *Box) currentKey(ctx context.Context) (cipher.AEAD, []byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	k := b.sealKey
	if k == nil || k.uses >= b.limits.SealKeyUses || time.Since(k.born) >= b.limits.SealKeyAge {
		plain, encrypted, err := b.provider.GenerateDataKey(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("generate a data key: %w", err)
		}
		b.generated.Add(1)
		aead, err := newAEAD(plain)
		if err != nil {
			return nil, nil, err
		}
		k = &sealKey{aead: aead, encrypted: encrypted, born: time.Now()}
		b.sealKey = k
		// What this process seals it can open without asking again.
		b.opened.Add(string(encrypted), aead)
	}
	k.uses++
	return k.aead, k.encrypted, nil
}

// openKey returns the cipher of an encrypted data key: from the cache, or
// decrypted by the provider once however many opens ask for it at once.
func (b *Box) openKey(ctx context.Context, encrypted []byte) (cipher.AEAD, error) {
	id := string(encrypted)
	if aead, ok := b.opened.Get(id); ok {
		return aead, nil
	}
	v, err, _ := b.opening.Do(id, func() (any, error) {
		if aead, ok := b.opened.Get(id); ok {
			return aead, nil
		}
		plain, err := b.provider.Decrypt(ctx, encrypted)
		if err != nil {
			return nil, fmt.Errorf("decrypt a data key: %w", err)
		}
		b.decrypted.Add(1)
		aead, err := newAEAD(plain)
		if err != nil {
			return nil, err
		}
		b.opened.Add(id, aead)
		return aead, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(cipher.AEAD), nil
}

// newAEAD is AES-256-GCM with key.
func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("data key of %d bytes, want 32 (AES-256)", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
