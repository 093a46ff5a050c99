package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

type brandingBody struct {
	DisplayName, LogoURL, BrandColor, SenderName, ReplyTo, FooterText string
	UpdatedAt                                                         string
}

func getBranding(t *testing.T, api *testenv.API) brandingBody {
	t.Helper()
	res := api.Do("GET", "/api/campaigns/organization/branding", nil)
	if res.Status != http.StatusOK {
		t.Fatalf("get branding: %d %s", res.Status, res.Body)
	}
	var env struct{ Data brandingBody }
	res.JSON(t, &env)
	return env.Data
}

// TestBrandingATenantSets: an organization sets its branding and reads it
// back; a colour white text cannot be read on is a 400 naming the
// contrast rule and changes nothing; another organization's branding is
// its own; a key without the admin scope may not change it.
func TestBrandingATenantSets(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "brand", 0)
	_, otherKey := testenv.Org(t, s, "brand-other", 0)
	api := testenv.NewAPI(t, s, key)
	if b := getBranding(t, api); b != (brandingBody{}) {
		t.Fatalf("branding before any was set: %+v", b)
	}
	in := map[string]any{"displayName": " Acme ", "logoUrl": "https://cdn.acme.test/logo.png", "brandColor": "#0B5394",
		"senderName": "Ada at Acme", "replyTo": "Ada@Acme.test", "footerText": "Acme Inc, 1 Main St"}
	if res := api.Do("PUT", "/api/campaigns/organization/branding", in); res.Status != http.StatusOK {
		t.Fatalf("put branding: %d %s", res.Status, res.Body)
	}
	got := getBranding(t, api)
	if got.DisplayName != "Acme" || got.BrandColor != "#0b5394" || got.ReplyTo != "ada@acme.test" || got.LogoURL != in["logoUrl"] ||
		got.SenderName != "Ada at Acme" || got.FooterText != "Acme Inc, 1 Main St" || got.UpdatedAt == "" {
		t.Errorf("branding read back: %+v", got)
	}
	// The recipient list's organization object keeps the original
	// interface's fields: the branding is not one (its schema, which every
	// answer here is checked against, allows no other).
	list := api.Do("GET", "/api/campaigns/campaigns/"+createCampaign(t, api, 10)+"/recipients", nil)
	if list.Status != http.StatusOK || strings.Contains(string(list.Body), "branding") {
		t.Errorf("the recipient list: %d %s; want its organization without the branding", list.Status, list.Body)
	}

	for field, bad := range map[string]any{"brandColor": "#ffd700", "logoUrl": "http://cdn.acme.test/logo.png", "replyTo": "nobody"} {
		res := api.Do("PUT", "/api/campaigns/organization/branding", map[string]any{field: bad})
		var e struct {
			Code    string
			Details map[string]string
		}
		res.JSON(t, &e)
		if res.Status != http.StatusBadRequest || e.Details[field] == "" {
			t.Errorf("%s %v: %d %s, want 400 naming %s", field, bad, res.Status, res.Body, field)
		}
		if field == "brandColor" && !strings.Contains(e.Details[field], "4.5:1") {
			t.Errorf("colour refused without the rule: %s", e.Details[field])
		}
	}
	if again := getBranding(t, api); again != got {
		t.Errorf("a refused PUT changed the branding: %+v", again)
	}
	if other := getBranding(t, api.WithKey(otherKey)); other != (brandingBody{}) {
		t.Errorf("another organization sees %+v", other)
	}
	writer := api.WithKey(newKey(t, api, "writer", "read", "write", "spend").Key)
	assertScopeRefused(t, writer.Do("PUT", "/api/campaigns/organization/branding", in), "admin")
}
