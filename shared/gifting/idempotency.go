package gifting

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
