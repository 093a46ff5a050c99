package gifting

import "strings"

// Every organization has a sandbox: a twin organization that test keys
// (TestAPIKeyPrefix) reach. The twin's id is the live organization's id
// with SandboxSuffix, so every item of the twin is keyed apart from the
// live organization's (every item is keyed by organization id): isolation
// follows from the id, and no code path needs to know which one it serves
// except the mailer (emails are captured) and the twin's wallet (free
// credits). A live organization's id can never end with the suffix:
// ValidOrgID refuses '~'.
const SandboxSuffix = "~test"

// TestAPIKeyPrefix starts every test key, so a key's mode is visible to
// the person holding it and to secret scanners.
const TestAPIKeyPrefix = APIKeyPrefix + "test_"

// SandboxOrgID is the id of the sandbox twin of orgID (orgID itself when
// it is a sandbox already).
func SandboxOrgID(orgID string) string {
	if IsSandboxOrg(orgID) {
		return orgID
	}
	return orgID + SandboxSuffix
}

// IsSandboxOrg reports whether orgID is a sandbox twin's id.
func IsSandboxOrg(orgID string) bool {
	return strings.HasSuffix(orgID, SandboxSuffix) && ValidOrgID(strings.TrimSuffix(orgID, SandboxSuffix))
}

// LiveOrgID is the live organization a sandbox twin belongs to (orgID
// itself when it is live): its suspension applies to the twin.
func LiveOrgID(orgID string) string {
	if IsSandboxOrg(orgID) {
		return strings.TrimSuffix(orgID, SandboxSuffix)
	}
	return orgID
}

// APIKeyPrefixOf is the prefix of the keys of orgID: TestAPIKeyPrefix for
// a sandbox twin, APIKeyPrefix for a live organization.
func APIKeyPrefixOf(orgID string) string {
	if IsSandboxOrg(orgID) {
		return TestAPIKeyPrefix
	}
	return APIKeyPrefix
}
