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
// first response and never a second effect.
type Idempotent[T any] struct {
	Key    IdempotencyKey
	Status int
	Render func(T) ([]byte, error)
}
