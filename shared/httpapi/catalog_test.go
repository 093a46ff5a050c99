package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

type giftPage struct {
	Data       []gifting.Gift `json:"data"`
	Page       int            `json:"page"`
	Limit      int            `json:"limit"`
	Total      int            `json:"total"`
	TotalPages int            `json:"totalPages"`
	HasNext    bool           `json:"hasNext"`
	HasPrev    bool           `json:"hasPrev"`
}

func newGift(name string, price float64) map[string]any {
	return map[string]any{
		"name": name, "price": price, "currency": "USD", "status": "available",
		"inventory":     map[string]any{"total": 10, "available": 8, "reserved": 2},
		"collectionIds": []string{"swag"},
	}
}

func TestListGifts(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	catalog, err := seed.LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if res := api.Do("POST", "/api/campaigns/gifts", newGift(fmt.Sprintf("Acme Hoodie %d", i), 20)); res.Status != http.StatusCreated {
			t.Fatalf("create gift: %d %s", res.Status, res.Body)
		}
	}
	nCatalog := len(catalog.Gifts)

	t.Run("defaults", func(t *testing.T) {
		var p giftPage
		api.Do("GET", "/api/campaigns/gifts", nil).JSON(t, &p)
		if p.Page != 1 || p.Limit != 12 || p.Total != nCatalog+3 || p.HasPrev {
			t.Fatalf("got page %d limit %d total %d hasPrev %v; want 1, 12, %d, false", p.Page, p.Limit, p.Total, p.HasPrev, nCatalog+3)
		}
		if len(p.Data) != min(12, nCatalog+3) {
			t.Errorf("got %d gifts, want %d", len(p.Data), min(12, nCatalog+3))
		}
		if p.Data[0].IsDelightloop || p.Data[0].Name != "Acme Hoodie 2" {
			t.Errorf("first gift = %q (catalog %v), want the org's newest, Acme Hoodie 2", p.Data[0].Name, p.Data[0].IsDelightloop)
		}
	})
	t.Run("pages", func(t *testing.T) {
		var p giftPage
		api.Do("GET", "/api/campaigns/gifts?page=2&limit=4", nil).JSON(t, &p)
		wantPages := (nCatalog + 3 + 3) / 4
		if len(p.Data) != 4 || p.TotalPages != wantPages || !p.HasNext || !p.HasPrev {
			t.Fatalf("page 2: %d items, %d pages, next %v prev %v; want 4, %d, true, true", len(p.Data), p.TotalPages, p.HasNext, p.HasPrev, wantPages)
		}
		var last giftPage
		api.Do("GET", fmt.Sprintf("/api/campaigns/gifts?page=%d&limit=4", wantPages+1), nil).JSON(t, &last)
		if len(last.Data) != 0 || last.HasNext {
			t.Errorf("past the end: %d items, hasNext %v; want none", len(last.Data), last.HasNext)
		}
	})
	t.Run("isDelightloop=true is the catalog only", func(t *testing.T) {
		var p giftPage
		api.Do("GET", "/api/campaigns/gifts?isDelightloop=true&limit=100", nil).JSON(t, &p)
		if p.Total != nCatalog {
			t.Fatalf("total = %d, want %d", p.Total, nCatalog)
		}
		for _, g := range p.Data {
			if !g.IsDelightloop || g.OrganizationID != gifting.CatalogOrgID {
				t.Errorf("gift %s: isDelightloop %v org %s", g.GiftID, g.IsDelightloop, g.OrganizationID)
			}
		}
	})
	t.Run("isDelightloop=false is the org's own", func(t *testing.T) {
		var p giftPage
		api.Do("GET", "/api/campaigns/gifts?isDelightloop=false", nil).JSON(t, &p)
		if p.Total != 3 {
			t.Fatalf("total = %d, want 3", p.Total)
		}
	})
	t.Run("search is case-insensitive on name", func(t *testing.T) {
		var p giftPage
		api.Do("GET", "/api/campaigns/gifts?search=HOODIE", nil).JSON(t, &p)
		if p.Total != 3 {
			t.Fatalf("total = %d, want 3", p.Total)
		}
	})
	t.Run("status and collection", func(t *testing.T) {
		var p giftPage
		api.Do("GET", "/api/campaigns/gifts?status=pending", nil).JSON(t, &p)
		for _, g := range p.Data {
			if g.Status != "pending" {
				t.Errorf("gift %s has status %s", g.GiftID, g.Status)
			}
		}
		if p.Total == 0 {
			t.Error("no pending gift found; the catalog has one")
		}
		api.Do("GET", "/api/campaigns/gifts?collectionId=swag", nil).JSON(t, &p)
		if p.Total != 3 {
			t.Errorf("collection swag: total %d, want 3", p.Total)
		}
	})
	for _, tt := range []struct{ name, query, field string }{
		{"page zero", "page=0", "page"},
		{"page not a number", "page=abc", "page"},
		{"limit above 100", "limit=101", "limit"},
		{"limit zero", "limit=0", "limit"},
		{"unknown status", "status=lost", "status"},
		{"isDelightloop not boolean", "isDelightloop=yes", "isDelightloop"},
		{"blank limit", "limit=", "limit"},
		{"blank page", "page=%20", "page"},
		{"blank status", "status=", "status"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("GET", "/api/campaigns/gifts?"+tt.query, nil)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
}

func assertError(t *testing.T, res testenv.Response, status int, code string) {
	t.Helper()
	if res.Status != status {
		t.Fatalf("status = %d, want %d; body %s", res.Status, status, res.Body)
	}
	m := res.Map(t)
	if m["success"] != false || m["statusCode"] != float64(status) || m["code"] != code || m["message"] == "" || m["error"] == "" {
		t.Errorf("error body = %s; want success false, statusCode %d, code %s, message and error", res.Body, status, code)
	}
}

func TestGetGiftAndTenancy(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, keyA := testenv.Org(t, s, "acme", 0)
	_, keyB := testenv.Org(t, s, "globex", 0)
	a := testenv.NewAPI(t, s, keyA)
	b := a.WithKey(keyB)

	var created struct {
		Success    bool         `json:"success"`
		StatusCode int          `json:"statusCode"`
		Data       gifting.Gift `json:"data"`
	}
	res := a.Do("POST", "/api/campaigns/gifts", newGift("Acme Mug", 12.5))
	res.JSON(t, &created)
	if res.Status != http.StatusCreated || !created.Success || created.StatusCode != 201 || created.Data.GiftID == "" {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	id := created.Data.GiftID

	var g gifting.Gift
	res = a.Do("GET", "/api/campaigns/gifts/"+id, nil)
	res.JSON(t, &g)
	if res.Status != http.StatusOK || g.Name != "Acme Mug" || g.Price != 12.5 || g.OrganizationID != "acme" || g.IsDelightloop {
		t.Fatalf("get own gift: %d %s", res.Status, res.Body)
	}
	// Another organization cannot see it, and cannot tell it exists.
	assertError(t, b.Do("GET", "/api/campaigns/gifts/"+id, nil), http.StatusNotFound, "NOT_FOUND")
	var p giftPage
	b.Do("GET", "/api/campaigns/gifts?limit=100", nil).JSON(t, &p)
	for _, g := range p.Data {
		if g.GiftID == id {
			t.Fatal("another organization lists acme's gift")
		}
	}
	// Both see the catalog.
	for _, api := range []*testenv.API{a, b} {
		res := api.Do("GET", "/api/campaigns/gifts/gift-artisan-coffee", nil)
		res.JSON(t, &g)
		if res.Status != http.StatusOK || !g.IsDelightloop || g.Inventory.Total != 500 || g.Dimensions == nil || g.Weight == nil {
			t.Errorf("catalog gift: %d %s", res.Status, res.Body)
		}
	}
	assertError(t, a.Do("GET", "/api/campaigns/gifts/nope", nil), http.StatusNotFound, "NOT_FOUND")
}

func TestCreateGiftValidation(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	with := func(k string, v any) map[string]any {
		g := newGift("Mug", 10)
		g[k] = v
		return g
	}
	without := func(k string) map[string]any {
		g := newGift("Mug", 10)
		delete(g, k)
		return g
	}
	for _, tt := range []struct {
		name  string
		body  any
		field string
	}{
		{"negative price", with("price", -1), "price"},
		{"missing price", without("price"), "price"},
		{"price as string", with("price", "10"), "price"},
		{"bad currency", with("currency", "dollars"), "currency"},
		{"unknown status", with("status", "lost"), "status"},
		{"inventory over total", with("inventory", map[string]any{"total": 5, "available": 5, "reserved": 1}), "inventory"},
		{"missing name", with("name", " "), "name"},
		{"unknown field", with("giftId", "mine"), "giftId"},
		{"bad image url", with("imageUrls", []string{"ftp://x"}), "imageUrls"},
		{"bad weight unit", with("weight", map[string]any{"weight": 1, "unit": "stone"}), "weight.unit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("POST", "/api/campaigns/gifts", tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	t.Run("malformed JSON", func(t *testing.T) {
		assertError(t, api.Do("POST", "/api/campaigns/gifts", `{"name":`), http.StatusBadRequest, "MALFORMED_REQUEST")
	})
	t.Run("empty body", func(t *testing.T) {
		assertError(t, api.Do("POST", "/api/campaigns/gifts", nil), http.StatusBadRequest, "MALFORMED_REQUEST")
	})
	t.Run("array body", func(t *testing.T) {
		assertError(t, api.Do("POST", "/api/campaigns/gifts", `[]`), http.StatusBadRequest, "MALFORMED_REQUEST")
	})
	t.Run("null body", func(t *testing.T) {
		assertError(t, api.Do("POST", "/api/campaigns/gifts", `null`), http.StatusBadRequest, "MALFORMED_REQUEST")
	})
	t.Run("two objects", func(t *testing.T) {
		assertError(t, api.Do("POST", "/api/campaigns/gifts", `{} {}`), http.StatusBadRequest, "MALFORMED_REQUEST")
	})
	// DynamoDB cannot store these; they must be refused before a write.
	for _, n := range []string{"1.5e308", "1e-200", "1e126"} {
		t.Run("number "+n, func(t *testing.T) {
			body := fmt.Sprintf(`{"name":"Big","price":%s,"currency":"USD","inventory":{"total":1,"available":1,"reserved":0}}`, n)
			assertError(t, api.Do("POST", "/api/campaigns/gifts", body), http.StatusBadRequest, "MALFORMED_REQUEST")
		})
	}
	t.Run("oversized body", func(t *testing.T) {
		big := fmt.Sprintf(`{"name": %q}`, strings.Repeat("a", 2<<20))
		assertError(t, api.Do("POST", "/api/campaigns/gifts", big), http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
	})
	t.Run("nothing was written", func(t *testing.T) {
		var p giftPage
		api.Do("GET", "/api/campaigns/gifts?isDelightloop=false", nil).JSON(t, &p)
		if p.Total != 0 {
			t.Errorf("rejected creates left %d gifts", p.Total)
		}
	})
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, keyA := testenv.Org(t, s, "acme", 0)
	_, keyB := testenv.Org(t, s, "globex", 0)
	a := testenv.NewAPI(t, s, keyA)

	var env struct {
		Success bool             `json:"success"`
		Message string           `json:"message"`
		Data    gifting.Template `json:"data"`
	}
	res := a.Do("GET", "/api/campaigns/templates/tmpl-meeting-booker", nil)
	res.JSON(t, &env)
	if res.Status != http.StatusOK || !env.Success || env.Message == "" || !env.Data.IsDelightloop ||
		env.Data.TemplateData.Goal.LogoColor != "#1d4ed8" || len(env.Data.Tags) == 0 {
		t.Fatalf("catalog template: %d %s", res.Status, res.Body)
	}
	body := map[string]any{
		"templateName": "Renewal thanks", "templateCategory": "retention", "tags": []string{"renewal"},
		"successRate": 40, "description": "Say thanks", "imageUrl": "https://img.example.com/t.png",
		"templateData": map[string]any{
			"goal": map[string]any{"goalId": "g1", "name": "Retain", "description": "Keep customers",
				"logo": "https://img.example.com/l.png", "logoColor": "#1d4ed8"},
			"emails": map[string]any{"addressConfirmation": map[string]any{"subject": "Hi", "html": "<p>Hi</p>"}},
		},
	}
	res = a.Do("POST", "/api/campaigns/templates", body)
	res.JSON(t, &env)
	if res.Status != http.StatusCreated || env.Data.TemplateID == "" || env.Data.OrganizationID != "acme" {
		t.Fatalf("create template: %d %s", res.Status, res.Body)
	}
	id := env.Data.TemplateID
	if res := a.Do("GET", "/api/campaigns/templates/"+id, nil); res.Status != http.StatusOK {
		t.Errorf("get own template: %d", res.Status)
	}
	assertError(t, a.WithKey(keyB).Do("GET", "/api/campaigns/templates/"+id, nil), http.StatusNotFound, "NOT_FOUND")

	body["templateData"].(map[string]any)["goal"].(map[string]any)["logoColor"] = "blue"
	assertError(t, a.Do("POST", "/api/campaigns/templates", body), http.StatusBadRequest, "VALIDATION_FAILED")
	// A colour white button text cannot be read on is refused as the
	// branding's brandColor is, naming the rule and the ratio.
	body["templateData"].(map[string]any)["goal"].(map[string]any)["logoColor"] = "#3b82f6"
	res = a.Do("POST", "/api/campaigns/templates", body)
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	if !strings.Contains(string(res.Body), "templateData.goal.logoColor") || !strings.Contains(string(res.Body), "3.68:1") {
		t.Errorf("an unreadable logo colour: %s; want its field, its ratio and the rule", res.Body)
	}
}

func TestUnknownRoute(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	assertError(t, testenv.NewAPI(t, s, key).Do("GET", "/api/campaigns/nowhere/at/all", nil), http.StatusNotFound, "NOT_FOUND")
}

// TestTemplateEmailBounds: an email too long for mail clients, or emails
// too long together to store as one template, are a 400 naming the field,
// on create and on update, and nothing is written; a template just within
// the bounds is stored and its recipients are added.
func TestTemplateEmailBounds(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 1000)
	a := testenv.NewAPI(t, s, key)
	html := func(kb int) string { return "<p>{{firstName}}</p>" + strings.Repeat("x", kb<<10-20) }
	body := func(emails map[string]any) map[string]any {
		return map[string]any{"templateName": "Big", "templateCategory": "retention", "successRate": 1,
			"templateData": map[string]any{"emails": emails}}
	}
	email := func(kb int) map[string]any { return map[string]any{"subject": "Hi {{firstName}}", "html": html(kb)} }
	details := func(res testenv.Response) map[string]any {
		t.Helper()
		var env struct {
			Details map[string]any `json:"details"`
		}
		res.JSON(t, &env)
		return env.Details
	}
	before := a.Do("GET", "/api/campaigns/templates?limit=100", nil)

	res := a.Do("POST", "/api/campaigns/templates", body(map[string]any{"addressConfirmation": email(101)}))
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	if d := details(res); d["templateData.emails.addressConfirmation.html"] == nil {
		t.Errorf("a 101 KB email: details %v, want templateData.emails.addressConfirmation.html", d)
	}
	res = a.Do("POST", "/api/campaigns/templates", body(map[string]any{
		"addressConfirmation": email(90), "reminder1": email(90), "reminder2": email(90), "postDelivery": email(90)}))
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	if d := details(res); d["templateData.emails"] == nil {
		t.Errorf("360 KB of emails: details %v, want templateData.emails", d)
	}
	res = a.Do("POST", "/api/campaigns/templates", body(map[string]any{"addressConfirmation": map[string]any{"subject": strings.Repeat("s", 999), "html": "<p>x</p>"}}))
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	if after := a.Do("GET", "/api/campaigns/templates?limit=100", nil); string(after.Body) != string(before.Body) {
		t.Errorf("a refused template was stored")
	}

	var tmpl struct {
		Data gifting.Template `json:"data"`
	}
	res = a.Do("POST", "/api/campaigns/templates", body(map[string]any{
		"addressConfirmation": email(95), "reminder1": email(95), "reminder2": email(95)}))
	res.JSON(t, &tmpl)
	if res.Status != http.StatusCreated {
		t.Fatalf("285 KB of emails: %d %s", res.Status, res.Body)
	}
	res = a.Do("PATCH", "/api/campaigns/templates/"+tmpl.Data.TemplateID, map[string]any{"templateData": map[string]any{"emails": map[string]any{
		"addressConfirmation": email(95), "reminder1": email(95), "reminder2": email(95), "postDelivery": email(95)}}})
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")

	var gift struct {
		Data gifting.Gift `json:"data"`
	}
	a.Do("POST", "/api/campaigns/gifts", newGift("Hamper", 10)).JSON(t, &gift)
	var c struct {
		Data campaign.Campaign `json:"data"`
	}
	a.Do("POST", "/api/campaigns", map[string]any{"name": "Big", "campaignData": map[string]any{
		"giftIds": []string{gift.Data.GiftID}, "emailTemplateId": tmpl.Data.TemplateID, "creditsPerRecipient": 10}}).JSON(t, &c)
	if res := a.Do("POST", addPath(c.Data.CampaignID), recipientBody("ann@example.com", "Ann")); res.Status != http.StatusOK {
		t.Errorf("add-recipient with the 285 KB template: %d %s", res.Status, res.Body)
	}
}
