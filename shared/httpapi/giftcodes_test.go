package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/testenv"
)

// createDigitalGift creates a digital gift (no inventory: its codes are
// its stock) and returns its id.
func createDigitalGift(t *testing.T, api *testenv.API, name string) string {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/gifts", map[string]any{"name": name, "type": "digital", "price": 25, "currency": "USD"})
	if res.Status != http.StatusCreated {
		t.Fatalf("create digital gift: %d %s", res.Status, res.Body)
	}
	g := res.Map(t)["data"].(map[string]any)
	if g["type"] != "digital" {
		t.Fatalf("created gift's type %v, want digital", g["type"])
	}
	return g["giftId"].(string)
}

type codesReport struct {
	Data struct {
		Received, Added, Failed int
		Results                 []struct {
			Index        int
			Status, Code string
			Reason       string
			Details      map[string]string
		}
	}
}

type codesSummary struct {
	Data struct{ Total, Available, Assigned, Expired int }
}

// TestGiftCodeUpload uploads codes to a digital gift as an organization
// would from a provider's export: the codes are counted into the gift's
// units, a code sent twice in one request or again in a later one is
// refused by itself (the rest still added), invalid codes are refused with
// the field at fault, and the answers show each code only by its last four
// characters. The summary counts an expired code apart. No stored
// attribute, no response and no log line holds a code, a PIN or a URL.
func TestGiftCodeUpload(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "codes", 0)
	logs := &logLines{}
	api := sealingAPI(t, s, key, logs)
	gift := createDigitalGift(t, api, "Coffee card $25")
	path := "/api/campaigns/gifts/" + gift + "/codes"

	soon := time.Now().Add(3 * time.Second).UTC().Truncate(time.Second).Add(time.Second)
	codes := []map[string]any{
		{"code": "CAFE-7Q2X-91KD-0001", "pin": "PIN-Q7Z4821", "url": "https://redeem.example.com/c"},
		{"code": "CAFE-7Q2X-91KD-0002"},
		{"code": "CAFE-7Q2X-91KD-0001"}, // the same as the first
		{"code": "CAFE-7Q2X-91KD-0003", "expiresAt": soon.Format(time.RFC3339)},
		{"code": "", "pin": "1"},
		{"code": "CAFE-7Q2X-91KD-0004", "url": "http://plain.example.com"},
		{"code": "CAFE-7Q2X-91KD-0005", "expiresAt": "2020-01-01T00:00:00Z"},
	}
	res := api.Do("POST", path, map[string]any{"codes": codes})
	if res.Status != http.StatusMultiStatus {
		t.Fatalf("upload: %d %s, want 207", res.Status, res.Body)
	}
	var rep codesReport
	res.JSON(t, &rep)
	if rep.Data.Received != 7 || rep.Data.Added != 3 || rep.Data.Failed != 4 {
		t.Fatalf("upload report %+v, want 7 received, 3 added, 4 failed", rep.Data)
	}
	wantStatus := []string{"added", "added", "failed", "added", "failed", "failed", "failed"}
	for i, r := range rep.Data.Results {
		if r.Index != i || r.Status != wantStatus[i] {
			t.Errorf("result %d: %+v, want index %d %s", i, r, i, wantStatus[i])
		}
	}
	if r := rep.Data.Results[0]; r.Code != "••••0001" {
		t.Errorf("first code shown as %q, want ••••0001", r.Code)
	}
	if r := rep.Data.Results[2]; !strings.Contains(r.Reason, "entry 0") {
		t.Errorf("a code sent twice: reason %q, want it to name entry 0", r.Reason)
	}
	if d := rep.Data.Results[5].Details; d["url"] == "" {
		t.Errorf("an http URL: details %v, want url named", d)
	}
	if d := rep.Data.Results[6].Details; d["expiresAt"] == "" {
		t.Errorf("an expired code: details %v, want expiresAt named", d)
	}

	// The same file again: every code is in the pool already, so nothing
	// is added or counted twice.
	again := api.Do("POST", path, map[string]any{"codes": codes[:4]})
	var rep2 codesReport
	again.JSON(t, &rep2)
	if again.Status != http.StatusMultiStatus || rep2.Data.Added != 0 || rep2.Data.Failed != 4 ||
		!strings.Contains(rep2.Data.Results[1].Reason, "already") {
		t.Fatalf("upload again: %d %+v, want 207 with every code refused as already there", again.Status, rep2.Data)
	}
	// A new code in a later request is added and counted.
	if res := api.Do("POST", path, map[string]any{"codes": []map[string]any{{"code": "CAFE-7Q2X-91KD-0006"}}}); res.Status != http.StatusCreated {
		t.Fatalf("upload a new code: %d %s, want 201", res.Status, res.Body)
	}

	var g struct {
		Inventory struct{ Total, Available int }
	}
	api.Do("GET", "/api/campaigns/gifts/"+gift, nil).JSON(t, &g)
	if g.Inventory.Total != 4 || g.Inventory.Available != 4 {
		t.Errorf("gift inventory %+v, want 4 total and available (its codes)", g.Inventory)
	}
	summary := func() codesSummary {
		var sum codesSummary
		res := api.Do("GET", path+"/summary", nil)
		if res.Status != http.StatusOK {
			t.Fatalf("summary: %d %s", res.Status, res.Body)
		}
		res.JSON(t, &sum)
		return sum
	}
	if sum := summary(); sum.Data.Total != 4 || sum.Data.Available != 4 || sum.Data.Expired != 0 || sum.Data.Assigned != 0 {
		t.Errorf("summary %+v, want 4 total, 4 available", sum.Data)
	}
	time.Sleep(time.Until(soon) + 1100*time.Millisecond)
	if sum := summary(); sum.Data.Total != 4 || sum.Data.Available != 3 || sum.Data.Expired != 1 {
		t.Errorf("summary after one code expired %+v, want 4 total, 3 available, 1 expired", sum.Data)
	}

	// Another instance, cold (no data key cached): it opens the pool's key
	// with KMS Decrypt, so the same code has the same id there and is
	// refused, and a new one is added.
	cold := testenv.NewAPI(t, s, key)
	var rep3 codesReport
	coldRes := cold.Do("POST", path, map[string]any{"codes": []map[string]any{codes[1], {"code": "CAFE-7Q2X-91KD-0007"}}})
	coldRes.JSON(t, &rep3)
	if coldRes.Status != http.StatusMultiStatus || rep3.Data.Added != 1 || !strings.Contains(rep3.Data.Results[0].Reason, "already") {
		t.Errorf("a cold instance's upload: %d %+v, want the known code refused and the new one added", coldRes.Status, rep3.Data)
	}

	// Needles no log line could hold by chance (a 4-digit PIN matched a
	// request's duration once): the codes' shared prefix, the whole PIN,
	// the URL's host.
	secrets := []string{"CAFE-7Q2X-91KD", "PIN-Q7Z4821", "redeem.example.com"}
	if found := scanFor(t, s.Table(), secrets); len(found) > 0 {
		t.Errorf("the table holds a code, PIN or URL in clear at %v", found)
	}
	for _, sec := range secrets {
		if strings.Contains(logs.String(), sec) {
			t.Errorf("a log line holds %q", sec)
		}
		for _, b := range [][]byte{res.Body, again.Body, coldRes.Body} {
			if strings.Contains(string(b), sec) {
				t.Errorf("a response holds %q", sec)
			}
		}
	}
}

// TestGiftCodeUploadRefusals: codes go only to an organization's own
// digital gifts, 1 to 1,000 a request; another organization's gift is
// invisible.
func TestGiftCodeUploadRefusals(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "codes-no", 0)
	_, otherKey := testenv.Org(t, s, "codes-other", 0)
	api := testenv.NewAPI(t, s, key)
	other := api.WithKey(otherKey)
	digital := createDigitalGift(t, api, "Voucher")
	physical := api.Do("POST", "/api/campaigns/gifts", newGift("Mug", 12)).Map(t)["data"].(map[string]any)["giftId"].(string)
	one := map[string]any{"codes": []map[string]any{{"code": "VOUCHER-0001"}}}
	many := make([]map[string]any, 1001)
	for i := range many {
		many[i] = map[string]any{"code": fmt.Sprintf("V-%04d", i)}
	}
	for _, tt := range []struct {
		name   string
		api    *testenv.API
		gift   string
		body   any
		status int
		code   string
	}{
		{"a physical gift", api, physical, one, http.StatusConflict, "CONFLICT"},
		{"another organization's gift", other, digital, one, http.StatusNotFound, "NOT_FOUND"},
		{"no codes", api, digital, map[string]any{"codes": []any{}}, http.StatusBadRequest, "VALIDATION_FAILED"},
		{"1,001 codes", api, digital, map[string]any{"codes": many}, http.StatusBadRequest, "VALIDATION_FAILED"},
	} {
		res := tt.api.Do("POST", "/api/campaigns/gifts/"+tt.gift+"/codes", tt.body)
		if res.Status != tt.status || res.Map(t)["code"] != tt.code {
			t.Errorf("%s: %d %s, want %d %s", tt.name, res.Status, res.Body, tt.status, tt.code)
		}
	}
	// A campaign sends a digital gift like any other (its claim hands out
	// a code), alone or beside a physical one.
	for _, body := range []map[string]any{
		{"name": "E-gifts", "campaignData": map[string]any{"giftIds": []string{digital}}},
		{"name": "Mixed", "campaignData": map[string]any{"giftIds": []string{physical, digital}}},
	} {
		if res := api.Do("POST", "/api/campaigns", body); res.Status != http.StatusCreated {
			t.Errorf("campaign %v with a digital gift: %d %s, want 201", body["name"], res.Status, res.Body)
		}
	}
	if res := other.Do("GET", "/api/campaigns/gifts/"+digital+"/codes/summary", nil); res.Status != http.StatusNotFound {
		t.Errorf("another organization's summary: %d, want 404", res.Status)
	}
	// A digital gift takes no inventory of its own, and keeps its type.
	bad := api.Do("POST", "/api/campaigns/gifts", map[string]any{"name": "Card", "type": "digital", "price": 5, "currency": "USD",
		"inventory": map[string]any{"total": 5, "available": 5, "reserved": 0}})
	if bad.Status != http.StatusBadRequest {
		t.Errorf("digital gift with inventory: %d %s, want 400", bad.Status, bad.Body)
	}
	if res := api.Do("PATCH", "/api/campaigns/gifts/"+digital, map[string]any{"type": "physical"}); res.Status != http.StatusBadRequest {
		t.Errorf("change a gift's type: %d %s, want 400", res.Status, res.Body)
	}
}

// TestGiftCodeUploadsRacing: uploads of overlapping files at once add
// each code once, and the gift's units equal its codes.
func TestGiftCodeUploadsRacing(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "codes-race", 0)
	api := testenv.NewAPI(t, s, key)
	gift := createDigitalGift(t, api, "Streaming month")
	var wg sync.WaitGroup
	added := make([]int, 4)
	for u := range added {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes := make([]map[string]any, 150)
			for i := range codes {
				codes[i] = map[string]any{"code": fmt.Sprintf("STREAM-%04d", i+u*50)} // overlapping by 100
			}
			var rep codesReport
			res := api.Do("POST", "/api/campaigns/gifts/"+gift+"/codes", map[string]any{"codes": codes})
			if res.Status != http.StatusCreated && res.Status != http.StatusMultiStatus {
				t.Errorf("upload %d: %d %s", u, res.Status, res.Body)
				return
			}
			res.JSON(t, &rep)
			added[u] = rep.Data.Added
		}()
	}
	wg.Wait()
	total := added[0] + added[1] + added[2] + added[3]
	if total != 300 { // codes 0 to 299
		t.Errorf("codes added %v = %d, want 300 distinct", added, total)
	}
	var sum codesSummary
	api.Do("GET", "/api/campaigns/gifts/"+gift+"/codes/summary", nil).JSON(t, &sum)
	var g struct {
		Inventory struct{ Total, Available int }
	}
	api.Do("GET", "/api/campaigns/gifts/"+gift, nil).JSON(t, &g)
	if sum.Data.Total != 300 || g.Inventory.Available != 300 || g.Inventory.Total != 300 {
		t.Errorf("summary %+v, gift inventory %+v: want 300 codes and units", sum.Data, g.Inventory)
	}
}
