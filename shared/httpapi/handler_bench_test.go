package httpapi_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/giftcampaign/service/shared/httpapi"
)

// BenchmarkHandlerWithoutStore measures what every request costs before
// and after its endpoint's own work: the middleware (request id, headers,
// request log), the routing and an error body. A request without a key is
// refused before any read, so no store is needed. The local server serves
// every group, a Lambda function one.
func BenchmarkHandlerWithoutStore(b *testing.B) {
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	srv := httpapi.NewServer(nil, nil, httpapi.Config{Logger: log})
	for _, bc := range []struct {
		name   string
		groups []httpapi.Group
	}{
		{"every group", httpapi.Groups},
		{"campaigns only", []httpapi.Group{httpapi.Campaigns}},
	} {
		h := srv.Handler(bc.groups...)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodGet, "/api/campaigns/01JBENCH0000000000000000AA", nil)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusUnauthorized {
					b.Fatalf("status %d, want 401", w.Code)
				}
			}
		})
	}
}
