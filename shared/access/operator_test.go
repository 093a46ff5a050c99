package access

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

func TestParseMonth(t *testing.T) {
	now := time.Date(2026, 11, 30, 23, 30, 0, 0, time.FixedZone("UTC-3", -3*3600)) // 2026-12-01 in UTC
	for in, want := range map[string]string{"": "2026-12", "2026-11": "2026-11", "2000-01": "2000-01"} {
		if got, err := ParseMonth(in, now); err != nil || got != want {
			t.Errorf("ParseMonth(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"2026-13", "2026-1", "26-11", "1999-12", "2026-11-01", "november", " 2026-11"} {
		if _, err := ParseMonth(bad, now); gifting.ErrorCode(err) != gifting.CodeValidation {
			t.Errorf("ParseMonth(%q): %v, want VALIDATION_FAILED", bad, err)
		}
	}
}

func TestCheckFirstAdminKey(t *testing.T) {
	revoked := time.Now()
	for _, tt := range []struct {
		name string
		keys []gifting.APIKey
		ok   bool
	}{
		{"no keys", nil, true},
		{"a read key", []gifting.APIKey{{KeyID: "a", Scopes: []gifting.Scope{gifting.ScopeRead}}}, true},
		{"a revoked admin key", []gifting.APIKey{{KeyID: "a", Scopes: []gifting.Scope{gifting.ScopeAdmin}, RevokedAt: &revoked}}, true},
		{"a live admin key", []gifting.APIKey{{KeyID: "a", Scopes: []gifting.Scope{gifting.ScopeAdmin}}}, false},
		// A key made before scopes holds every scope.
		{"a key without scopes", []gifting.APIKey{{KeyID: "a"}}, false},
	} {
		err := CheckFirstAdminKey(tt.keys)
		if (err == nil) != tt.ok || (err != nil && gifting.ErrorCode(err) != gifting.CodeConflict) {
			t.Errorf("%s: %v, want ok %v (else CONFLICT)", tt.name, err, tt.ok)
		}
	}
}
