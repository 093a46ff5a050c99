package gifting

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

// APIKeyPrefix marks the service's keys so a leaked one is recognisable by
// secret scanners.
const APIKeyPrefix = "gcs_"

// APIKeyShownChars is how many characters of a key after APIKeyPrefix are
// kept and shown to tell keys apart (6 base64url characters: 36 bits of
// the key's 256, which leaves a guess no closer).
const APIKeyShownChars = 6

// apiKeyRandomLength is the length of the random part of every key the
// store makes: 32 random bytes in unpadded base64url, after the prefix
// (APIKeyPrefix, or TestAPIKeyPrefix for a sandbox's key).
var apiKeyRandomLength = base64.RawURLEncoding.EncodedLen(32)

// WellFormedAPIKey reports whether s has the shape of the keys CreateAPIKey
// makes, live or test, so anything else can be refused without a read.
func WellFormedAPIKey(s string) bool {
	// Tried in turn: a live key's random part may itself start "test_".
	for _, prefix := range []string{APIKeyPrefix, TestAPIKeyPrefix} {
		if len(s) != len(prefix)+apiKeyRandomLength || !strings.HasPrefix(s, prefix) {
			continue
		}
		_, err := base64.RawURLEncoding.Strict().DecodeString(s[len(prefix):])
		return err == nil
	}
	return false
}

// HashAPIKey returns the hex SHA-256 of an API key: the only form in which a
// key is stored. Keys carry 256 random bits, so a fast hash is enough.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// NewID returns a new identifier: a ULID, sortable by creation time, with
// 80 bits from crypto/rand so ids cannot be guessed from one another.
func NewID() string { return NewIDAt(time.Now()) }

// IsNewID reports whether s is an id as NewID spells it (a ULID, upper
// case): the only form of a position in something ordered by such ids,
// like a ledger cursor.
func IsNewID(s string) bool {
	id, err := ulid.ParseStrict(s)
	return err == nil && id.String() == s
}

// IDTime is the time an id made by NewIDAt holds (to the millisecond);
// ok is false for an id of another form (a legacy or imported one).
func IDTime(s string) (t time.Time, ok bool) {
	id, err := ulid.ParseStrict(s)
	if err != nil || id.String() != s { // IsNewID's test, on the one parse
		return time.Time{}, false
	}
	return ulid.Time(id.Time()), true
}

// FirstIDAt is the smallest id NewIDAt can make at t's millisecond: a
// position just before everything created from t on.
func FirstIDAt(t time.Time) string {
	var id ulid.ULID
	_ = id.SetTime(ulid.Timestamp(t)) // fails only past the year 10889
	return id.String()
}

// NewIDAt is NewID for a thing created at t: stores pass their own clock,
// so ids sort as the times written beside them.
func NewIDAt(t time.Time) string {
	return ulid.MustNew(ulid.Timestamp(t), rand.Reader).String()
}
