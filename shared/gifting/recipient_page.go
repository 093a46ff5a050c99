package gifting

import "strings"

// PageKind says which of a recipient's two pages a page id names.
type PageKind int

// The recipient's pages.
const (
	LandingPage PageKind = iota + 1
	ClaimPage
)

// A page id (landing or claim) has one of two forms:
//
//   - "<organization>.<campaign>.<recipient>.<secret>": the recipient's
//     ids, lower-cased, and PageSecretLength characters of lower-case
//     base32 (100 random bits). The ids locate the recipient without an
//     index (ParsePageID); the secret, compared with the one the recipient
//     holds, is what makes the id a credential.
//   - LegacyPageIDLength characters of lower-case base32: the ids of
//     recipients created before, found through an index.
const (
	PageSecretLength   = 20
	LegacyPageIDLength = 26
	// pageIDSep separates a page id's parts; organization ids are
	// [a-z0-9-] (ValidOrgID, a sandbox's with "~test") and the other ids 26 characters of base32, so
	// it is never one of theirs.
	pageIDSep = "."
	// ulidLength is the length of a campaign or recipient id in a page id.
	ulidLength = 26
)

// PageRef is the recipient a page id names.
type PageRef struct {
	OrgID, CampaignID, RecipientID string
}

// NewPageID is the page id of the recipient ref with the given secret, and
// false when ref's ids cannot be spelled in one (an organization id outside
// [a-z0-9-], a campaign or recipient id that is not an upper-case ULID):
// such a recipient gets a legacy page id.
func NewPageID(ref PageRef, secret string) (string, bool) {
	id := ref.OrgID + pageIDSep + strings.ToLower(ref.CampaignID) + pageIDSep + strings.ToLower(ref.RecipientID) + pageIDSep + secret
	if got, ok := ParsePageID(id); !ok || got != ref {
		return "", false
	}
	return id, true
}

// ParsePageID returns the recipient a page id names, and false for a
// legacy or malformed id.
func ParsePageID(id string) (PageRef, bool) {
	parts := strings.Split(id, pageIDSep)
	if len(parts) != 4 {
		return PageRef{}, false
	}
	org, campaign, recipient, secret := parts[0], parts[1], parts[2], parts[3]
	if !(ValidOrgID(org) || IsSandboxOrg(org)) ||
		len(campaign) != ulidLength || !only(campaign, crockford) ||
		len(recipient) != ulidLength || !only(recipient, crockford) ||
		len(secret) != PageSecretLength || !only(secret, base32Lower) {
		return PageRef{}, false
	}
	return PageRef{OrgID: org, CampaignID: strings.ToUpper(campaign), RecipientID: strings.ToUpper(recipient)}, true
}

// ValidPageID reports whether id is well-formed as a page id of either
// form, so a malformed one is refused without a read.
func ValidPageID(id string) bool {
	if _, ok := ParsePageID(id); ok {
		return true
	}
	return LegacyPageID(id)
}

// LegacyPageID reports whether id is a well-formed page id of the legacy
// form.
func LegacyPageID(id string) bool {
	return len(id) == LegacyPageIDLength && only(id, base32Lower)
}

// The alphabets of page ids: lower-case base32 (RFC 4648) for secrets and
// legacy ids, lower-case Crockford base32 for ULIDs.
const (
	base32Lower = "abcdefghijklmnopqrstuvwxyz234567"
	crockford   = "0123456789abcdefghjkmnpqrstvwxyz"
)

// only reports whether every byte of s is one of chars.
func only(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(chars, s[i]) < 0 {
			return false
		}
	}
	return true
}
