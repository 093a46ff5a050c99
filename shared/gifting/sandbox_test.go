package gifting

import (
	"crypto/rand"
	"encoding/base64"
	"testing"
)

func TestSandboxOrgIDs(t *testing.T) {
	if got := SandboxOrgID("acme"); got != "acme~test" || !IsSandboxOrg(got) || LiveOrgID(got) != "acme" {
		t.Errorf("SandboxOrgID(acme) = %q (sandbox %v, live %q)", got, IsSandboxOrg(got), LiveOrgID(got))
	}
	if SandboxOrgID("acme~test") != "acme~test" || IsSandboxOrg("acme") || LiveOrgID("acme") != "acme" {
		t.Error("a sandbox's twin is itself; a live org is no sandbox")
	}
	for _, bad := range []string{"~test", "-x~test", "Acme~test", "acme~test~test"} {
		if IsSandboxOrg(bad) {
			t.Errorf("IsSandboxOrg(%q) = true", bad)
		}
	}
	if ValidOrgID("acme~test") {
		t.Error("a live organization could be named as a sandbox")
	}
	ref := PageRef{OrgID: "acme~test", CampaignID: "01JH8Z4Q1V6W3K2M9T5R7Y0CMP", RecipientID: "01JH8Z4Q1V6W3K2M9T5R7Y0RCP"}
	if id, ok := NewPageID(ref, "abcdefghijklmnopqrst"); !ok || !ValidPageID(id) {
		t.Errorf("a sandbox recipient's page id %q (%v)", id, ok)
	}
}

func TestWellFormedTestKeys(t *testing.T) {
	raw := make([]byte, 32)
	_, _ = rand.Read(raw)
	random := base64.RawURLEncoding.EncodeToString(raw)
	for key, want := range map[string]bool{
		APIKeyPrefix + random:               true,
		TestAPIKeyPrefix + random:           true,
		APIKeyPrefix + "test_" + random[5:]: true, // a live key whose random part starts test_
		TestAPIKeyPrefix + random[1:]:       false,
		"gcs_live_" + random:                false,
	} {
		if WellFormedAPIKey(key) != want {
			t.Errorf("WellFormedAPIKey(%q) = %v, want %v", key, !want, want)
		}
	}
	if APIKeyPrefixOf("acme~test") != TestAPIKeyPrefix || APIKeyPrefixOf("acme") != APIKeyPrefix {
		t.Error("APIKeyPrefixOf")
	}
}
