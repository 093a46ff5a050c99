package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
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
			Items      []wire.LedgerEntry `json:"items"`
			NextCursor string             `json:"nextCursor"`
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
	// Only an entry id is a cursor: an id-shaped word, or an id spelled in
	// lower case (entry ids sort in upper case), would silently give a
	// page that follows nothing the client read.
	lower := strings.ToLower(before[len(before)-1].EntryID)
	for _, bad := range []string{"a b", "x/y", "%00", "zzz", "page-2", lower} {
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

// TestEndingACampaignRefundsWithItsOwnReason: completing or deleting a
// campaign gives back the credits of its unclaimed recipients at once,
// long before their claim period runs out. The ledger entry a tenant reads
// says so, rather than that the recipient let the claim period pass.
func TestEndingACampaignRefundsWithItsOwnReason(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, method, path string
	}{
		{"complete", "POST", "/complete"},
		{"delete", "DELETE", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := testenv.Store(t)
			orgID, key := testenv.Org(t, s, "acme", 1000)
			api := testenv.NewAPI(t, s, key)
			c := postCampaign(t, api, map[string]any{"name": "Short", "campaignData": map[string]any{
				"giftIds": []string{"gift-wireless-charger"}}})
			testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
			if res := api.Do("POST", addPath(c.CampaignID), recipientBody("r@example.com", "R")); res.Status != http.StatusOK {
				t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
			}
			if res := api.Do(tt.method, "/api/campaigns/"+c.CampaignID+tt.path, nil); res.Status != http.StatusOK {
				t.Fatalf("%s: %d %s", tt.name, res.Status, res.Body)
			}
			api.Jobs.Wait()
			top := walletOf(t, api, "?limit=1").Ledger.Items
			if len(top) != 1 || top[0].Type != "refund" || top[0].CampaignID != c.CampaignID {
				t.Fatalf("newest entry %+v; want the refund of the campaign's recipient", top)
			}
			if got, want := top[0].Reason, "the campaign ended before the recipient claimed its gift"; got != want {
				t.Errorf("refund reason %q; want %q (the claim period had not run out)", got, want)
			}
			testenv.AssertLedgerBalanced(t, s, orgID)
		})
	}
}
