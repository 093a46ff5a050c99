package pages_test

import (
	"bytes"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/pages"
)

// TestDemoGiftImagesAreServed: every image the demo catalog names under
// /assets/gifts/ is served by the pages as a small PNG a day's cacheable;
// a name that is not one of them, or that reaches out of the folder, is
// 404.
func TestDemoGiftImagesAreServed(t *testing.T) {
	t.Parallel()
	h := pages.New(nil, nil)
	cat, err := seed.LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range cat.Gifts {
		for _, u := range g.ImageURLs {
			if !strings.HasPrefix(u, "/assets/gifts/") {
				t.Errorf("gift %s: image %s is not one the stack serves", g.GiftID, u)
				continue
			}
			n++
			rec := serve(h, u)
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/png" || !strings.Contains(rec.Header().Get("Cache-Control"), "max-age") {
				t.Errorf("%s: %d %v", u, rec.Code, rec.Header())
				continue
			}
			if _, err := png.Decode(bytes.NewReader(rec.Body.Bytes())); err != nil || rec.Body.Len() > 8<<10 {
				t.Errorf("%s: %d bytes, decode: %v", u, rec.Body.Len(), err)
			}
		}
	}
	if n == 0 {
		t.Fatal("the demo catalog names no image")
	}
	for _, u := range []string{"/assets/gifts/nope.png", "/assets/gifts/..%2fpages.html", "/assets/gifts/.png", "/assets/gifts/style.css"} {
		if rec := serve(h, u); rec.Code != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", u, rec.Code)
		}
	}
}

func serve(h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec
}
