package httpapi_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// requestHeapBound is the most one request may allocate however big the
// tenant (issue 30): the functions have 256 MB, and a call that holds a
// whole partition in memory runs out of it near 100,000 items.
const requestHeapBound = 32 << 20

// TestRequestHeapAtScale fills one campaign with 100,000 recipients (and its
// organization with as many contacts) and holds the heap one request of
// each path below allocates under requestHeapBound: a page must not cost
// memory in proportion to the collection it pages through.
//
// It takes minutes (the contacts and the launch are written as the
// service writes them), so it runs only with SCALE_TEST=1: `make
// test-scale`. SCALE_TEST_N sets another size.
//
// Only paths that read one page today are held to the bound. These still
// read the whole collection and are to be added as they are made O(page)
// (issue 30; bench/scale.md measures them all):
//   - GET /contacts?search=…, GET /contact-lists/{id}/contacts?search=…
//   - POST /enrichment/enrich
//   - GET /audience-lists/{id}/contacts?sortBy=updatedAt, ?search=…
//   - GET /campaigns/{id}/recipients?sortBy=firstName, email, company or
//     updatedAt, ?search=…, ?userId=…, and sortBy=lastName with a filter or
//     groupBy (decision 0011 says why)
//   - GET /wallet?page=<deep>
//   - GET /changes
func TestRequestHeapAtScale(t *testing.T) {
	if os.Getenv("SCALE_TEST") == "" {
		t.Skip("fills 100,000 contacts and recipients: run with SCALE_TEST=1 (make test-scale)")
	}
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("SCALE_TEST_N")); err == nil && v >= 1000 {
		n = v
	}
	// The launch is unpaced: the pace is for AWS partitions, and the
	// recipients it writes are the same.
	s := testenv.Store(t, dynamo.WithLaunchWriteRate(math.MaxInt32))
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	orgID, key := testenv.Org(t, s, "big", int64(n)*price)
	api := testenv.NewAPI(t, s, key)
	start := time.Now()
	listID := fillList(t, s, orgID, n)
	filled := time.Since(start)
	c := launchReady(t, api, gifts[1], listID)
	if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	api.Jobs.Wait()
	t.Logf("%d contacts added in %.0f s, launched in %.0f s", n, filled.Seconds(), (time.Since(start) - filled).Seconds())
	if got := fetchCampaign(t, api, c.CampaignID); got.TotalRecipients != int64(n) {
		t.Fatalf("the launch wrote %d recipients, want %d", got.TotalRecipients, n)
	}

	for _, tt := range []struct {
		name, path string
		// items is the JSON field of the page's items.
		items string
	}{
		{"contacts, page 1", "/api/campaigns/contacts?limit=100", `"contactId"`},
		{"recipients, default order", "/api/campaigns/campaigns/" + c.CampaignID + "/recipients?limit=100", `"recipientId"`},
		{"recipients, express-send", "/api/campaigns/recipients/express-send/campaign/" + c.CampaignID + "?limit=100", `"recipientId"`},
		{"contacts, the last page by number", fmt.Sprintf("/api/campaigns/contacts?limit=100&page=%d", (n+99)/100), `"contactId"`},
		{"recipients of one status", "/api/campaigns/campaigns/" + c.CampaignID + "/recipients?limit=100&status=invite_sent", `"recipientId"`},
		{"recipients grouped by status", "/api/campaigns/campaigns/" + c.CampaignID + "/recipients?limit=100&groupBy=true&page=3", `"recipientId"`},
		{"recipients without feedback", "/api/campaigns/campaigns/" + c.CampaignID + "/recipients?limit=100&feedback=false", `"recipientId"`},
		{"recipients, express-send of one status", "/api/campaigns/recipients/express-send/campaign/" + c.CampaignID + "?limit=100&status=invite_sent", `"recipientId"`},
		{"recipients by last name", "/api/campaigns/campaigns/" + c.CampaignID + "/recipients?limit=100&sortBy=lastName&sortOrder=asc", `"recipientId"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body, heap := requestHeap(t, api.Handler, key, tt.path)
			if got := strings.Count(body, tt.items); got < 100 {
				t.Fatalf("the page holds %d items, want 100: %.300s", got, body)
			}
			t.Logf("%s with %d items: %.1f MB allocated", tt.path, n, float64(heap)/(1<<20))
			if heap > requestHeapBound {
				t.Errorf("one request allocated %.1f MB with %d items, want at most %d MB", float64(heap)/(1<<20), n, requestHeapBound>>20)
			}
		})
	}
}

// requestHeap calls h once and returns the body and the bytes the process
// allocated meanwhile (the test runs alone: no parallel test allocates).
func requestHeap(t *testing.T, h http.Handler, key, path string) (string, uint64) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.Header.Set("x-api-key", key)
	rec := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h.ServeHTTP(rec, req)
	runtime.ReadMemStats(&after)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return rec.Body.String(), after.TotalAlloc - before.TotalAlloc
}

// fillList adds n new contacts to a new list through the contacts' bulk add
// (the path of POST /contact-lists/{id}/contacts), 1,000 a call from four
// goroutines, and returns the list's id.
func fillList(t *testing.T, s *dynamo.Store, orgID string, n int) string {
	t.Helper()
	ctx := context.Background()
	l, err := s.CreateContactList(ctx, orgID, "user-"+orgID, "everyone", "")
	if err != nil {
		t.Fatal(err)
	}
	app := contact.NewApp(s, nil)
	const chunk = 1000
	starts := make(chan int)
	errs := make(chan error, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for from := range starts {
				in := make([]contact.Input, 0, chunk)
				for i := from; i < min(from+chunk, n); i++ {
					in = append(in, contact.Input{MailID: fmt.Sprintf("p%d@big.example.com", i),
						FirstName: fmt.Sprintf("First%d", i), LastName: fmt.Sprintf("Last%d", i%977), CompanyName: fmt.Sprintf("Company %d", i%500)})
				}
				res, err := app.AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: "test", Provider: "test"})
				if err == nil && (res.Failed > 0 || res.Created != len(in)) {
					err = fmt.Errorf("contacts %d…: created %d, failed %d", from, res.Created, res.Failed)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for from := 0; from < n; from += chunk {
		select {
		case starts <- from:
		case err := <-errs:
			close(starts)
			wg.Wait()
			t.Fatal(err)
		}
	}
	close(starts)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatal(<-errs)
	}
	return l.ListID
}
