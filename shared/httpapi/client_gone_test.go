package httpapi_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestClientGoneIsNoInternalError: a client that closes its connection
// before the answer (the request's context cancelled, as net/http does)
// leaves a quiet line and the status 499 in the request log: no ERROR, no
// "internal error", no 500 to count.
func TestClientGoneIsNoInternalError(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 100)
	api, logs := loggedAPI(t, s, key)
	for _, path := range []string{"/api/campaigns/wallet", "/api/campaigns/campaigns", "/api/campaigns/contacts"} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := httptest.NewRequest("GET", path, nil).WithContext(ctx)
		req.Header.Set("x-api-key", key)
		api.Handler.ServeHTTP(httptest.NewRecorder(), req)
	}
	out := logs.String()
	for _, bad := range []string{`"level":"ERROR"`, `"internal error"`, `"status":500`} {
		if strings.Contains(out, bad) {
			t.Errorf("the log holds %s for a client that went away:\n%s", bad, out)
		}
	}
	if n := strings.Count(out, `"status":499`); n != 3 {
		t.Errorf("%d request log lines say 499, want 3:\n%s", n, out)
	}
}
