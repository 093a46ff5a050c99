package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestGiftFieldLimits: a gift field over its limit is a 400 naming the
// field, on create and on PATCH (not a 413 from the item size, not a
// count that wraps), and nothing is written; a gift at every limit is
// stored. Limits count characters, so a name in a two-byte script gets
// as many letters as one in ASCII.
func TestGiftFieldLimits(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	long := func(n int) string { return strings.Repeat("é", n) }
	url := func(n int) string {
		return "https://img.example.com/" + strings.Repeat("a", n-len("https://img.example.com/"))
	}
	urls := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = url(40)
		}
		return out
	}
	words := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a'+i%26)) + strings.Repeat("x", size-2) + string(rune('a'+i/26))
		}
		return out
	}
	huge := int64(9_000_000_000_000_000_000)
	for _, tt := range []struct {
		name  string
		field string
		value any
		want  string // the field the 400 names
	}{
		{"name", "name", long(201), "name"},
		{"short description", "shortDescription", long(501), "shortDescription"},
		{"description", "description", long(2001), "description"},
		{"too many images", "imageUrls", urls(21), "imageUrls"},
		{"image URL too long", "imageUrls", []string{url(2049)}, "imageUrls"},
		{"too many collections", "collectionIds", words(51, 10), "collectionIds"},
		{"collection id too long", "collectionIds", words(1, 101), "collectionIds"},
		{"counts whose sum wraps", "inventory", map[string]any{"total": huge, "available": huge, "reserved": huge}, "inventory"},
		{"count past the bound", "inventory", map[string]any{"total": catalog.MaxInventory + 1, "available": 0, "reserved": 0}, "inventory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := newGift("Mug", 10)
			body[tt.field] = tt.value
			res := api.Do("POST", "/api/campaigns/gifts", body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.want] == nil {
				t.Errorf("create: details %v do not name %s", d, tt.want)
			}
		})
	}
	var p giftPage
	api.Do("GET", "/api/campaigns/gifts?isDelightloop=false", nil).JSON(t, &p)
	if p.Total != 0 {
		t.Fatalf("refused creates left %d gifts", p.Total)
	}

	atLimit := newGift(long(200), 10)
	atLimit["shortDescription"], atLimit["description"] = long(500), long(2000)
	atLimit["imageUrls"], atLimit["collectionIds"] = append(urls(19), url(2048)), words(50, 100)
	atLimit["inventory"] = map[string]any{"total": catalog.MaxInventory, "available": catalog.MaxInventory, "reserved": 0}
	var created struct {
		Data gifting.Gift `json:"data"`
	}
	res := api.Do("POST", "/api/campaigns/gifts", atLimit)
	res.JSON(t, &created)
	if res.Status != http.StatusCreated {
		t.Fatalf("a gift at every limit: %d %.300s", res.Status, res.Body)
	}
	path := "/api/campaigns/gifts/" + created.Data.GiftID
	t.Run("PATCH", func(t *testing.T) {
		for field, value := range map[string]any{"description": long(2001), "shortDescription": long(501), "collectionIds": words(51, 5)} {
			res := api.Do("PATCH", path, map[string]any{field: value})
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[field] == nil {
				t.Errorf("PATCH %s: details %v do not name it", field, d)
			}
		}
		var g gifting.Gift
		api.Do("GET", path, nil).JSON(t, &g)
		if len([]rune(g.Description)) != 2000 || len(g.CollectionIDs) != 50 {
			t.Errorf("refused PATCHes changed the gift: description %d characters, %d collections", len([]rune(g.Description)), len(g.CollectionIDs))
		}
	})
}

// TestTemplateFieldLimits: a template's description, tags, category,
// image and goal over their limits, and a subject with a line break (a
// mail header holds none: the message would not go out), are a 400 naming
// the field on create and PATCH, and nothing is written.
func TestTemplateFieldLimits(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	long := func(n int) string { return strings.Repeat("é", n) }
	tags := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = string(rune('a'+i%26)) + strings.Repeat("x", size-2) + string(rune('a'+i/26))
		}
		return out
	}
	body := func(k string, v any) map[string]any {
		b := map[string]any{"templateName": "Thanks", "templateCategory": "retention", "successRate": 10}
		if k != "" {
			b[k] = v
		}
		return b
	}
	withData := func(goal map[string]any, subject string) map[string]any {
		return body("templateData", map[string]any{"goal": goal,
			"emails": map[string]any{"addressConfirmation": map[string]any{"subject": subject, "html": "<p>Hi {{firstName}}</p>"}}})
	}
	for _, tt := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"description", body("description", long(2001)), "description"},
		{"too many tags", body("tags", tags(51, 5)), "tags"},
		{"tag too long", body("tags", tags(1, 101)), "tags"},
		{"category", body("templateCategory", long(101)), "templateCategory"},
		{"image URL", body("imageUrl", "https://img.example.com/"+strings.Repeat("a", 2048)), "imageUrl"},
		{"goal name", withData(map[string]any{"name": long(201)}, "Hi"), "templateData.goal.name"},
		{"goal description", withData(map[string]any{"description": long(2001)}, "Hi"), "templateData.goal.description"},
		{"goal id", withData(map[string]any{"goalId": long(101)}, "Hi"), "templateData.goal.goalId"},
		{"subject with a line break", withData(map[string]any{}, "Hi {{firstName}}\r\nBcc: all@example.com"), "templateData.emails.addressConfirmation.subject"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("POST", "/api/campaigns/templates", tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	var list struct {
		Data struct {
			Pagination gifting.Pagination `json:"pagination"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/templates?isDelightloop=false", nil).JSON(t, &list)
	if list.Data.Pagination.Total != 0 {
		t.Fatalf("refused creates left %d templates", list.Data.Pagination.Total)
	}

	atLimit := body("description", long(2000))
	atLimit["tags"], atLimit["templateCategory"] = tags(50, 100), long(100)
	var created struct {
		Data gifting.Template `json:"data"`
	}
	res := api.Do("POST", "/api/campaigns/templates", atLimit)
	res.JSON(t, &created)
	if res.Status != http.StatusCreated || len(created.Data.Tags) != 50 {
		t.Fatalf("a template at every limit: %d %.300s", res.Status, res.Body)
	}
	path := "/api/campaigns/templates/" + created.Data.TemplateID
	for field, value := range map[string]any{"description": long(2001), "tags": tags(51, 5)} {
		res := api.Do("PATCH", path, map[string]any{field: value})
		assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
		if d, _ := res.Map(t)["details"].(map[string]any); d[field] == nil {
			t.Errorf("PATCH %s: details %v do not name it", field, d)
		}
	}
	var got struct {
		Data gifting.Template `json:"data"`
	}
	api.Do("GET", path, nil).JSON(t, &got)
	if len([]rune(got.Data.Description)) != 2000 || len(got.Data.Tags) != 50 {
		t.Errorf("refused PATCHes changed the template: description %d characters, %d tags", len([]rune(got.Data.Description)), len(got.Data.Tags))
	}
}

// TestGiftSearchIsBounded: the gift list's search is bounded like every
// other list's (200 characters, a 400 naming it), not scanned against
// every gift name whatever its size.
func TestGiftSearchIsBounded(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	res := api.Do("GET", "/api/campaigns/gifts?search="+strings.Repeat("é", 201), nil)
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	if d, _ := res.Map(t)["details"].(map[string]any); d["search"] == nil {
		t.Errorf("details %v do not name search", d)
	}
	var p giftPage
	if res := api.Do("GET", "/api/campaigns/gifts?search=COFFEE", nil); res.Status != http.StatusOK {
		t.Fatalf("a search within the bound: %d %s", res.Status, res.Body)
	} else if res.JSON(t, &p); p.Total == 0 {
		t.Errorf("search=COFFEE found nothing; want the catalog's coffee")
	}
}
