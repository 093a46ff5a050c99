package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// declinedMessages counts the recipient.declined messages of the
// fixture's change feed (what the webhooks deliver) naming recipientID as
// declined.
func (f *fixture) declinedMessages(t *testing.T, recipientID string) int {
	t.Helper()
	n := 0
	for _, rec := range testenv.ChangeRecords(t, f.s, f.orgID) {
		for _, m := range rec.Messages {
			if r, ok := m.Data.(recipient.Recipient); ok && m.Type == gifting.ChangeRecipientDeclined &&
				r.RecipientID == recipientID && r.Status == gifting.RecipientDeclined {
				n++
			}
		}
	}
	return n
}

func TestDecline(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	balance, before := f.wallet(t)
	decline := "/gift/" + r.LandingPageID + "/decline"

	landing := f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	if !strings.Contains(landing.body, `action="`+decline+`"`) || !strings.Contains(landing.body, "No thanks") {
		t.Fatalf("the landing page offers no \"No thanks\" form: %s", landing.body)
	}
	if res := f.do(t, "POST", decline, nil); res.status != http.StatusUnsupportedMediaType {
		t.Errorf("a post that is not a form: %d, want 415", res.status)
	}
	for i := range 2 {
		res := f.do(t, "POST", decline, url.Values{})
		if res.status != http.StatusSeeOther || res.header.Get("Location") != "/gift/"+r.LandingPageID {
			t.Fatalf("decline %d: %d %v %s", i+1, res.status, res.header, res.body)
		}
	}
	got := f.recipient(t, r.RecipientID)
	if got.Status != gifting.RecipientDeclined || got.CreditsCharged != 0 {
		t.Errorf("recipient after decline: status %s, credits %d", got.Status, got.CreditsCharged)
	}
	for _, k := range gifting.EmailKinds {
		if was := r.Emails.Kind(k); was.Active && !was.Sent && got.Emails.Kind(k).Failure != recipient.EmailDeclined {
			t.Errorf("email %s after the decline: %+v, want stopped", k, got.Emails.Kind(k))
		}
	}
	if _, due := got.NextDue(); due {
		t.Error("a declined recipient still has due work (an email or its expiry)")
	}
	after, entries := f.wallet(t)
	if after != balance+f.creditsPerPerson || len(entries) != len(before)+1 || entries[0].Type != wallet.Refund ||
		entries[0].Amount != f.creditsPerPerson || entries[0].RecipientID != r.RecipientID {
		t.Errorf("balance %d (was %d), %d entries (were %d), newest %+v; want one refund of what was held",
			after, balance, len(entries), len(before), entries[0])
	}
	c, err := f.s.Campaign(context.Background(), f.orgID, f.campaign)
	if err != nil {
		t.Fatal(err)
	}
	if sc := c.LiveData.StatusCounts; sc[gifting.RecipientDeclined] != 1 || sc[gifting.RecipientPending] != 0 || c.LiveData.CreditsSpent != 0 {
		t.Errorf("campaign counters after decline: %+v", c.LiveData)
	}
	if n := f.declinedMessages(t, r.RecipientID); n != 1 {
		t.Errorf("%d recipient.declined messages, want 1", n)
	}
	end := f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	if end.status != http.StatusOK || !strings.Contains(end.body, "thank you for letting us know") ||
		strings.Contains(end.body, "/claim/") || strings.Contains(end.body, decline) {
		t.Errorf("landing page after the decline: %d %s", end.status, end.body)
	}
	if res := f.do(t, "GET", "/claim/"+r.ClaimPageID, nil); res.status != http.StatusSeeOther || res.header.Get("Location") != "/gift/"+r.LandingPageID {
		t.Errorf("claim page after the decline: %d, want 303 to the landing page", res.status)
	}
	if res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID)); res.status != http.StatusConflict {
		t.Errorf("claim after the decline: %d, want 409", res.status)
	}
	if final, _ := f.wallet(t); final != after || f.recipient(t, r.RecipientID).Status != gifting.RecipientDeclined {
		t.Error("a claim after the decline changed something")
	}
}

func TestDeclineAfterClaim(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	if res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID)); res.status != http.StatusSeeOther {
		t.Fatalf("claim: %d %s", res.status, res.body)
	}
	if landing := f.do(t, "GET", "/gift/"+r.LandingPageID, nil); strings.Contains(landing.body, "/decline") {
		t.Error("the landing page offers \"No thanks\" after the claim")
	}
	balance, _ := f.wallet(t)
	res := f.do(t, "POST", "/gift/"+r.LandingPageID+"/decline", url.Values{})
	if res.status != http.StatusConflict || !strings.Contains(res.body, "/gift/"+r.LandingPageID) {
		t.Errorf("decline after the claim: %d %s; want 409 leading to the gift", res.status, res.body)
	}
	if after, _ := f.wallet(t); after != balance || f.recipient(t, r.RecipientID).Status != gifting.RecipientProcessing {
		t.Error("a decline after the claim changed something")
	}
}

// TestDeclineRacesClaim posts "No thanks" and a claim of the cheap gift at
// once for each of several recipients: exactly one of the two wins, and
// the wallet, the ledger, the stock and the counters agree with the
// winners.
func TestDeclineRacesClaim(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	const n = 4
	var rs []recipient.Recipient
	for i := range n {
		rs = append(rs, f.add(t, fmt.Sprintf("r%d@example.com", i)))
	}
	balance, _ := f.wallet(t)
	codes := make([][2]int, n)
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(2)
		go func() {
			defer wg.Done()
			codes[i][0] = f.do(t, "POST", "/gift/"+r.LandingPageID+"/decline", url.Values{}).status
		}()
		go func() {
			defer wg.Done()
			codes[i][1] = f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID)).status
		}()
	}
	wg.Wait()
	var declined, claimed int64
	for i, r := range rs {
		st := f.recipient(t, r.RecipientID).Status
		switch {
		case codes[i] == [2]int{http.StatusSeeOther, http.StatusConflict} && st == gifting.RecipientDeclined:
			declined++
		case codes[i] == [2]int{http.StatusConflict, http.StatusSeeOther} && st == gifting.RecipientProcessing:
			claimed++
		default:
			t.Errorf("recipient %d: decline %d, claim %d, status %s; want exactly one to win", i, codes[i][0], codes[i][1], st)
		}
	}
	// A decline gives back all 40 held; a claim of the cheap gift (9.5,
	// 10 credits) gives back 30.
	if after, _ := f.wallet(t); after != balance+declined*f.creditsPerPerson+claimed*30 {
		t.Errorf("balance %d, want %d + %d declines × 40 + %d claims × 30", after, balance, declined, claimed)
	}
	if inv := f.gift(t, f.cheap.GiftID).Inventory; int64(inv.Reserved) != 2+claimed {
		t.Errorf("reserved %d, want %d", inv.Reserved, 2+claimed)
	}
	c, err := f.s.Campaign(context.Background(), f.orgID, f.campaign)
	if err != nil {
		t.Fatal(err)
	}
	if sc := c.LiveData.StatusCounts; sc[gifting.RecipientDeclined] != declined || sc[gifting.RecipientProcessing] != claimed {
		t.Errorf("counters %+v, want %d declined and %d processing", sc, declined, claimed)
	}
	testenv.AssertLedgerBalanced(t, f.s, f.orgID)
}
