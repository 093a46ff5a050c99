package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// ledgerAnswer is what GET /wallet says of the ledger.
type ledgerAnswer struct {
	Balance int64 `json:"balance"`
	Ledger  struct {
		Items      []wire.LedgerEntry `json:"items"`
		Pagination gifting.Pagination `json:"pagination"`
		NextCursor string             `json:"nextCursor"`
	} `json:"ledger"`
}

func ledgerAt(t *testing.T, api *testenv.API, query string) ledgerAnswer {
	t.Helper()
	var env struct {
		Data ledgerAnswer `json:"data"`
	}
	res := api.Do("GET", "/api/campaigns/wallet?"+query, nil)
	res.JSON(t, &env)
	if res.Status != http.StatusOK {
		t.Fatalf("wallet?%s: %d %s", query, res.Status, res.Body)
	}
	return env.Data
}

// TestLedgerPagesByNumber: every page of the ledger by number holds
// exactly the entries that walking it by nextCursor finds at that place,
// in the same order, with the same total, whether the organization's
// ledger is indexed (deep pages skip on its Slim entries), was written
// before ledger entries had Slim entries (pages read the entries they
// skip), or was indexed since by `admin migrate`; and the entries sum to
// the balance. An indexed deep page reads the entries it skips on the
// index only: the ledger's own Query asks for no more than the page and
// one entry.
func TestLedgerPagesByNumber(t *testing.T) {
	t.Parallel()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	if _, err := seed.SeedCatalog(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	orgID, key := testenv.Org(t, s, "acme", 10_000)
	api := testenv.NewAPI(t, s, key)
	c := postCampaign(t, api, map[string]any{"name": "Many", "campaignData": map[string]any{
		"giftIds": []string{"gift-wireless-charger"}}})
	const adds = 30
	for i := range adds {
		if res := api.Do("POST", addPath(c.CampaignID), recipientBody(fmt.Sprintf("r%d@example.com", i), "R")); res.Status != http.StatusOK {
			t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
		}
	}
	const entries = adds + 1 // and the opening top-up

	// walk reads the ledger by cursor, limit entries a page.
	walk := func(t *testing.T, limit int, from string) []wire.LedgerEntry {
		t.Helper()
		var all []wire.LedgerEntry
		cursor := from
		for n := 0; ; n++ {
			if n > entries {
				t.Fatalf("still paging after %d pages", n)
			}
			q := fmt.Sprintf("limit=%d", limit)
			if cursor != "" {
				q += "&cursor=" + url.QueryEscape(cursor)
			}
			page := ledgerAt(t, api, q)
			all = append(all, page.Ledger.Items...)
			if cursor = page.Ledger.NextCursor; cursor == "" {
				return all
			}
		}
	}
	check := func(t *testing.T) {
		// 31 = entries: its second page starts right after the last entry.
		for _, limit := range []int{4, 7, entries} {
			want := walk(t, limit, "")
			if len(want) != entries {
				t.Fatalf("the walk by cursor found %d entries; want %d", len(want), entries)
			}
			var sum int64
			for _, e := range want {
				if e.Type == "debit" {
					sum -= e.Amount
				} else {
					sum += e.Amount
				}
			}
			pages := (entries + limit - 1) / limit
			for p := 1; p <= pages+1; p++ {
				got := ledgerAt(t, api, fmt.Sprintf("page=%d&limit=%d", p, limit))
				lo, hi := min((p-1)*limit, entries), min(p*limit, entries)
				if !slices.Equal(got.Ledger.Items, want[lo:hi]) {
					t.Errorf("limit %d, page %d: %v; want %v", limit, p, ids(got.Ledger.Items), ids(want[lo:hi]))
				}
				pg := got.Ledger.Pagination
				if pg.Total != entries || pg.TotalPages != pages || pg.HasNext != (p < pages) {
					t.Errorf("limit %d, page %d: pagination %+v; want a total of %d in %d pages", limit, p, pg, entries, pages)
				}
				if wantNext := p < pages; (got.Ledger.NextCursor != "") != wantNext {
					t.Errorf("limit %d, page %d: nextCursor %q; want one: %v", limit, p, got.Ledger.NextCursor, wantNext)
				}
				if got.Balance != sum {
					t.Errorf("limit %d, page %d: balance %d; the entries sum to %d", limit, p, got.Balance, sum)
				}
			}
			// Pages by number counted from a cursor: page 2 after the
			// first page is the third page.
			first := ledgerAt(t, api, fmt.Sprintf("limit=%d", limit))
			if first.Ledger.NextCursor == "" {
				continue
			}
			got := ledgerAt(t, api, fmt.Sprintf("limit=%d&page=2&cursor=%s", limit, url.QueryEscape(first.Ledger.NextCursor)))
			if lo, hi := min(2*limit, entries), min(3*limit, entries); !slices.Equal(got.Ledger.Items, want[lo:hi]) {
				t.Errorf("limit %d, page 2 after the first page's cursor: %v; want %v", limit, ids(got.Ledger.Items), ids(want[lo:hi]))
			}
		}
		testenv.AssertLedgerBalanced(t, s, orgID)
	}
	// pageQueries are the ledger Queries of a deep page by number, by the
	// number of entries they asked for.
	pageQueries := func(t *testing.T) (table, index []int32) {
		u := &meter.Usage{Record: true}
		stop := m.Observe(u)
		ledgerAt(t, api, "page=6&limit=4")
		stop()
		for _, call := range u.Calls() {
			if q, ok := call.Input.(*dynamodb.QueryInput); ok && q.Limit != nil {
				if q.IndexName != nil {
					index = append(index, *q.Limit)
				} else {
					table = append(table, *q.Limit)
				}
			}
		}
		return table, index
	}

	t.Run("indexed", func(t *testing.T) {
		check(t)
		if table, index := pageQueries(t); !slices.Equal(table, []int32{5}) || len(index) == 0 {
			t.Errorf("page 6 of 4 queried the ledger for %v entries and its index for %v; want the page and one more (5) from the ledger, the 20 skipped from the index", table, index)
		}
	})
	t.Run("written before the index", func(t *testing.T) {
		testenv.UnindexLedger(t, s, orgID)
		check(t)
		if _, index := pageQueries(t); len(index) != 0 {
			t.Errorf("page 6 of 4 skipped on an index that does not hold the ledger yet")
		}
	})
	t.Run("migrated", func(t *testing.T) {
		res, err := s.Migrate(context.Background(), orgID, []string{"ledger-index"})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Changed != entries {
			t.Errorf("the migration indexed %d entries; want %d", res[0].Changed, entries)
		}
		check(t)
		if table, index := pageQueries(t); !slices.Equal(table, []int32{5}) || len(index) == 0 {
			t.Errorf("after the migration page 6 of 4 queried the ledger for %v entries and its index for %v", table, index)
		}
	})
}

func ids(es []wire.LedgerEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.EntryID
	}
	return out
}
