package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// unauthorized is the original interface's 401 body (docs/api.md), field for
// field.
func assertUnauthorized(t *testing.T, res testenv.Response) {
	t.Helper()
	if res.Status != http.StatusUnauthorized {
		t.Fatalf("status = %d, want 401; body %s", res.Status, res.Body)
	}
	got := res.Map(t)
	want := map[string]any{
		"success":    false,
		"statusCode": float64(401),
		"message":    "Unauthorized",
		"error":      "Invalid or missing API key",
	}
	if len(got) != len(want) {
		t.Errorf("401 body has fields %v, want exactly %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("401 body %s = %v, want %v", k, got[k], v)
		}
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)

	tests := []struct {
		name string
		key  string
	}{
		{"missing key", ""},
		{"unknown key", "gcs_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"},
		{"blank key", "   "},
		{"oversized key", string(make([]byte, 300))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertUnauthorized(t, api.WithKey(tt.key).Do("GET", "/api/campaigns/gifts", nil))
		})
	}
	t.Run("valid key", func(t *testing.T) {
		if res := api.Do("GET", "/api/campaigns/gifts", nil); res.Status != http.StatusOK {
			t.Fatalf("status = %d, want 200; body %s", res.Status, res.Body)
		}
	})
}

func TestRevokedKeyIsRejected(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	ctx := context.Background()
	orgID, _ := testenv.Org(t, s, "acme", 0)
	key, rec, err := s.CreateAPIKey(ctx, orgID, "bob", "to revoke")
	if err != nil {
		t.Fatal(err)
	}
	// A server with no key cache shows the revocation at once; the cache
	// bounds how long a revoked key keeps working elsewhere.
	srv := httpapi.NewServer(s, service.New(s, service.Config{Logger: testenv.Quiet}), httpapi.Config{KeyCacheTTL: -1, Logger: testenv.Quiet})
	api := testenv.HandlerAPI(t, srv.Handler(httpapi.Groups...), key)
	if res := api.Do("GET", "/api/campaigns/gifts", nil); res.Status != http.StatusOK {
		t.Fatalf("before revocation: status = %d, want 200", res.Status)
	}
	if _, err := s.RevokeAPIKey(ctx, orgID, rec.KeyID); err != nil {
		t.Fatal(err)
	}
	assertUnauthorized(t, api.Do("GET", "/api/campaigns/gifts", nil))

	if _, err := s.RevokeAPIKey(ctx, "someone-else", rec.KeyID); err == nil {
		t.Error("revoking through another organization succeeded")
	}
}

func TestKeysAreStoredOnlyAsHashes(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	if got := gifting.HashAPIKey(key); len(got) != 64 {
		t.Fatalf("hash length = %d, want 64 hex characters", len(got))
	}
	p, err := s.ResolveAPIKey(context.Background(), key)
	if err != nil || p.OrgID != "acme" || p.UserID != "user-acme" {
		t.Fatalf("ResolveAPIKey = %+v, %v; want acme / user-acme", p, err)
	}
	assertNoAttributeHolds(t, s, key)
}
