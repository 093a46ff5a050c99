package gifting

import (
	"strconv"
	"time"
)

// IdempotencyKey identifies a request that may be retried: the caller's
// Idempotency-Key header within a scope (the operation), and a hash of
// what the request asks for, so the same key with another request is told
// apart from a retry.
type IdempotencyKey struct {
	Scope string
	Key   string
	Hash  string
}

// StoredResponse is a stored first response, returned for a retried request.
type StoredResponse struct {
	Status int
	Body   []byte
}

// Idempotent makes a write replayable under an Idempotency-Key: the record
// holding the response (Status, and the body Render makes of the write's
// result) is written in the write's own transaction, so a retry gets the
// first response and never a second effect. Every operation that accepts
// an Idempotency-Key goes through it; the caller (the HTTP adapter) decides
// the status and the body, storage only keeps them.
type Idempotent[T any] struct {
	Key    IdempotencyKey
	Status int
	Render func(T) ([]byte, error)
}

// KeyOf is i's key, nil when i is nil (the request has none).
func (i *Idempotent[T]) KeyOf() *IdempotencyKey {
	if i == nil {
		return nil
	}
	return &i.Key
}

// IdempotencyRecord is a key's stored first response as storage found it.
type IdempotencyRecord struct {
	// Hash is the hash of the request that stored it.
	Hash   string
	Status int
	Body   []byte
	// ExpiresAt is when the record stops answering (epoch seconds): the
	// key may then be used again for a new request.
	ExpiresAt int64
}

// Replay decides a request under k whose key's record is rec (nil: none)
// at now: no response (nil, nil) when there is no record or it expired,
// the stored response when rec answers the same request, and
// IDEMPOTENCY_KEY_REUSED when the key was used for another request.
func (k IdempotencyKey) Replay(rec *IdempotencyRecord, now time.Time) (*StoredResponse, error) {
	if rec == nil || rec.ExpiresAt < now.Unix() {
		return nil, nil
	}
	if rec.Hash != k.Hash {
		return nil, Errorf(CodeIdempotencyMismatch,
			"the Idempotency-Key %s was already used for a different request; use a new key for a new request", strconv.Quote(k.Key))
	}
	return &StoredResponse{Status: rec.Status, Body: rec.Body}, nil
}

// IdempotencyWrite is the record a write stores under its key, in its own
// transaction: the status and body of its first response.
type IdempotencyWrite struct {
	Key    IdempotencyKey
	Status int
	Body   []byte
}

// Write is the record of the response i renders of v, nil when i is nil
// (the request has no key).
func (i *Idempotent[T]) Write(v T) (*IdempotencyWrite, error) {
	if i == nil {
		return nil, nil
	}
	body, err := i.Render(v)
	if err != nil {
		return nil, err
	}
	return &IdempotencyWrite{Key: i.Key, Status: i.Status, Body: body}, nil
}
