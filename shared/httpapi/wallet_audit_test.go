package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestLedgerPagesHoldStillWhileEntriesArrive: a tenant reading its ledger
// page by page while recipients are being added (each one a new entry at
// the top) follows ledger.nextCursor and sees every entry that was there
// when it started exactly once: none twice because the pages slid down,
// none missed. The last page has no nextCursor.
func TestLedgerPagesHoldStillWhileEntriesArrive(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1000)
	api := testenv.NewAPI(t, s, key)
	c := postCampaign(t, api, map[string]any{"name": "Busy", "campaignData": map[string]any{
		"giftIds": []string{"gift-wireless-charger"}}})
	add := func(i int) {
		t.Helper()
		res := api.Do("POST", addPath(c.CampaignID), recipientBody(fmt.Sprintf("r%d@example.com", i), "R"))
		if res.Status != http.StatusOK {
			t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
		}
	}
	for i := range 6 {
		add(i)
	}
	before := walletOf(t, api, "?limit=100").Ledger.Items // 7 entries: the opening top-up and 6 debits

	type cursorPage struct {
		Ledger struct {
			Items      []gifting.LedgerEntry `json:"items"`
			NextCursor string                `json:"nextCursor"`
		} `json:"ledger"`
	}
	seen := map[string]int{}
	var order []string
	cursor := ""
	for n := 0; ; n++ {
		if n > len(before) {
			t.Fatalf("still paging after %d pages", n)
		}
		q := "?limit=2"
		if cursor != "" {
			q += "&cursor=" + url.QueryEscape(cursor)
		}
		var env struct {
			Data cursorPage `json:"data"`
		}
		res := api.Do("GET", "/api/campaigns/wallet"+q, nil)
		res.JSON(t, &env)
		if res.Status != http.StatusOK {
			t.Fatalf("wallet%s: %d %s", q, res.Status, res.Body)
		}
		for _, e := range env.Data.Ledger.Items {
			seen[e.EntryID]++
			order = append(order, e.EntryID)
		}
		cursor = env.Data.Ledger.NextCursor
		if cursor == "" {
			break
		}
		add(100 + n) // a new entry at the top between two pages
	}
	for _, bad := range []string{"a b", "x/y", "%00"} {
		t.Run("cursor "+bad, func(t *testing.T) {
			assertError(t, api.Do("GET", "/api/campaigns/wallet?cursor="+url.QueryEscape(bad), nil), http.StatusBadRequest, "VALIDATION_FAILED")
		})
	}
	for id, k := range seen {
		if k > 1 {
			t.Errorf("entry %s listed %d times across the pages (%v)", id, k, order)
		}
	}
	for _, e := range before {
		if seen[e.EntryID] == 0 {
			t.Errorf("entry %s (%s %d) never listed across the pages (%v)", e.EntryID, e.Type, e.Amount, order)
		}
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}
