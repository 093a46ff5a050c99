package access

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
)

// NewKey is a key a tenant asks for: a name to tell it apart and its
// scopes.
type NewKey struct {
	Name   string          `json:"name"`
	Scopes []gifting.Scope `json:"scopes"`
	// Mode is live (the default: the organization's own data) or test
	// (its sandbox twin: a gcs_test_ key).
	Mode string `json:"mode,omitempty"`
}

// MaxKeyName bounds a key's name.
const MaxKeyName = 100

// UseRecordedEvery is how often a key's last use is written at most: a
// busy key costs one write a minute, and lastUsedAt is at most this old.
const UseRecordedEvery = time.Minute

// CheckNewKey validates in for a key made by by and returns its scopes in
// their canonical order: a name of 1 to MaxKeyName characters, at least
// one known scope and none twice (VALIDATION_FAILED naming the field), and
// only scopes by holds (INSUFFICIENT_SCOPE naming the first it lacks): a
// key never grants more than it holds.
func CheckNewKey(by gifting.Principal, in NewKey) ([]gifting.Scope, error) {
	var p gifting.Problems
	name := strings.TrimSpace(in.Name)
	switch {
	case name == "":
		p.Add("name", "is required: a name to tell the key apart, such as the integration it is for")
	case utf8.RuneCountInString(name) > MaxKeyName:
		p.Add("name", "must be at most 100 characters")
	}
	seen := map[gifting.Scope]bool{}
	for _, s := range in.Scopes {
		switch {
		case !slices.Contains(gifting.Scopes, s):
			p.Add("scopes", "each must be one of read, write, spend, admin")
		case seen[s]:
			p.Add("scopes", "must not name a scope twice")
		}
		seen[s] = true
	}
	if len(in.Scopes) == 0 {
		p.Add("scopes", "must name at least one of read, write, spend, admin")
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	var out []gifting.Scope
	for _, s := range gifting.Scopes {
		if !seen[s] {
			continue
		}
		if !by.Holds(s) {
			return nil, gifting.InsufficientScope(s)
		}
		out = append(out, s)
	}
	return out, nil
}

// CheckRevoke refuses a key revoking itself when it is the organization's
// last live key holding admin (keys lists them all): the organization
// would be left without a key that can make keys (CONFLICT).
func CheckRevoke(keys []gifting.APIKey, self string) error {
	admins, selfAdmin := 0, false
	for _, k := range keys {
		if k.RevokedAt != nil || !slices.Contains(gifting.Granted(k.Scopes), gifting.ScopeAdmin) {
			continue
		}
		admins++
		selfAdmin = selfAdmin || k.KeyID == self
	}
	if selfAdmin && admins == 1 {
		return gifting.Errorf(gifting.CodeConflict, "this is the organization's last admin key, so it cannot revoke itself: create another admin key first")
	}
	return nil
}
