package access_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
)

// A new key is named, names known scopes once each, and never holds a
// scope its creator lacks; a key made before scopes holds them all.
func TestCheckNewKey(t *testing.T) {
	full := gifting.Principal{OrgID: "acme", KeyID: "k0"}
	limited := gifting.Principal{OrgID: "acme", KeyID: "k1", Scopes: []gifting.Scope{gifting.ScopeRead, gifting.ScopeAdmin}}
	for _, tc := range []struct {
		name  string
		by    gifting.Principal
		in    access.NewKey
		want  []gifting.Scope
		code  gifting.Code
		field string
	}{
		{"a full key grants any", full, access.NewKey{Name: "CRM", Scopes: []gifting.Scope{"spend", "read"}}, []gifting.Scope{"read", "spend"}, "", ""},
		{"a limited key grants what it holds", limited, access.NewKey{Name: "viewer", Scopes: []gifting.Scope{"read"}}, []gifting.Scope{"read"}, "", ""},
		{"never more than it holds", limited, access.NewKey{Name: "x", Scopes: []gifting.Scope{"read", "spend"}}, nil, gifting.CodeInsufficientScope, "scope"},
		{"a name", full, access.NewKey{Name: "  ", Scopes: []gifting.Scope{"read"}}, nil, gifting.CodeValidation, "name"},
		{"a name of 100 characters at most", full, access.NewKey{Name: string(make([]byte, 101)), Scopes: []gifting.Scope{"read"}}, nil, gifting.CodeValidation, "name"},
		{"some scope", full, access.NewKey{Name: "x"}, nil, gifting.CodeValidation, "scopes"},
		{"known scopes", full, access.NewKey{Name: "x", Scopes: []gifting.Scope{"delete-everything"}}, nil, gifting.CodeValidation, "scopes"},
		{"each once", full, access.NewKey{Name: "x", Scopes: []gifting.Scope{"read", "read"}}, nil, gifting.CodeValidation, "scopes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := access.CheckNewKey(tc.by, tc.in)
			if tc.code == "" {
				if err != nil || !slices.Equal(got, tc.want) {
					t.Fatalf("CheckNewKey = %v, %v; want %v", got, err, tc.want)
				}
				return
			}
			var e *gifting.Error
			if gifting.ErrorCode(err) != tc.code || !errors.As(err, &e) || e.Details[tc.field] == "" {
				t.Fatalf("CheckNewKey = %v; want %s naming %s", err, tc.code, tc.field)
			}
		})
	}
}

// The last live admin key cannot revoke itself; with another admin key,
// or as a key without admin, it can.
func TestCheckRevoke(t *testing.T) {
	now := time.Now()
	admin := gifting.APIKey{KeyID: "a1", Scopes: []gifting.Scope{gifting.ScopeAdmin}}
	legacy := gifting.APIKey{KeyID: "a0"} // made before scopes: holds admin
	reader := gifting.APIKey{KeyID: "r1", Scopes: []gifting.Scope{gifting.ScopeRead}}
	revokedAdmin := gifting.APIKey{KeyID: "a2", Scopes: []gifting.Scope{gifting.ScopeAdmin}, RevokedAt: &now}
	if err := access.CheckRevoke([]gifting.APIKey{admin, reader, revokedAdmin}, "a1"); gifting.ErrorCode(err) != gifting.CodeConflict {
		t.Errorf("the last admin key revoking itself: %v, want CONFLICT", err)
	}
	if err := access.CheckRevoke([]gifting.APIKey{admin, legacy}, "a1"); err != nil {
		t.Errorf("an admin key revoking itself beside a key made before scopes: %v", err)
	}
	if err := access.CheckRevoke([]gifting.APIKey{admin, reader}, "r1"); err != nil {
		t.Errorf("a read key revoking itself: %v", err)
	}
}
