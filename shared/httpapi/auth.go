package httpapi

import (
	"net/http"
	"strings"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
)

// errUnauthorized is the one answer to a missing, unknown or revoked key;
// the 401 body does not say which, so keys cannot be probed.
var errUnauthorized = access.Unauthorized()

// authenticate resolves the x-api-key header to the calling organization.
// A value that is not shaped like a key of the service is refused without
// a read. Resolved keys are cached by their hash for Config.KeyCacheTTL, and
// so are keys that resolved to nothing, so neither a valid key nor a
// repeated garbage one reads the key item on most requests; the key itself
// is never kept or logged. The key lookup is by hash, so no comparison of
// secrets happens in this process at all.
func (s *Server) authenticate(r *http.Request) (gifting.Principal, error) {
	secret := strings.TrimSpace(r.Header.Get("x-api-key"))
	if !gifting.WellFormedAPIKey(secret) {
		return gifting.Principal{}, errUnauthorized
	}
	hash := gifting.HashAPIKey(secret)
	if s.keys != nil {
		if p, ok := s.keys.Get(hash); ok {
			return p, nil
		}
		if _, ok := s.unknownKeys.Get(hash); ok {
			return gifting.Principal{}, errUnauthorized
		}
	}
	p, err := s.access.Resolve(r.Context(), secret)
	if gifting.ErrorCode(err) == gifting.CodeUnauthorized && s.unknownKeys != nil {
		s.unknownKeys.Add(hash, struct{}{})
	}
	if err != nil {
		return gifting.Principal{}, err
	}
	if s.keys != nil {
		s.keys.Add(hash, p)
	}
	return p, nil
}

// forgetKeys empties this process's cache of resolved keys, so a key
// revoked here stops working here at once (its hash is not at hand: the
// revocation names the key by id); the next request of each key reads it
// again.
func (s *Server) forgetKeys() {
	if s.keys != nil {
		s.keys.Purge()
	}
}
