package scheduler_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// senderAPI is the HTTP API over the mail environment's store and use
// cases (its SES emulator and clock), for an organization of its own,
// which becomes the environment's.
func (e *mailEnv) senderAPI(name string) *testenv.API {
	e.t.Helper()
	orgID, key := testenv.Org(e.t, e.store, name, 10_000)
	e.orgID = orgID
	srv := httpapi.NewServer(e.store, e.svc, httpapi.Config{Logger: testenv.Quiet})
	return testenv.HandlerAPI(e.t, srv.Handler(httpapi.Groups...), key)
}

// recipientOf decodes an enveloped recipient.
func recipientOf(t *testing.T, res testenv.Response) wire.Recipient {
	t.Helper()
	var env struct {
		Data wire.Recipient `json:"data"`
	}
	res.JSON(t, &env)
	return env.Data
}

// TestResendInvitation: the sender has an invited recipient's invitation
// sent again, which the SES emulator receives, at most three times and
// once an hour (429 with Retry-After, then without once the three are
// used); two resends at once send one email; a recipient not invited, or
// claimed, is 409; an unknown one 404.
func TestResendInvitation(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	api := e.senderAPI("resend")
	c := e.campaign(campaign.Live)
	jane := e.add(c, "jane").Response.RecipientID
	path := "/api/campaigns/campaigns/" + c.CampaignID + "/recipients/" + jane + "/resend"
	e.wantSubjects("jane", invitation)

	limited := func(wantRetry int) {
		t.Helper()
		res := api.Do("POST", path, nil)
		retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		if res.Status != http.StatusTooManyRequests || !strings.Contains(string(res.Body), `"code":"RATE_LIMITED"`) ||
			(wantRetry == 0) != (res.Header.Get("Retry-After") == "") || (wantRetry > 0 && (retry < wantRetry-1 || retry > wantRetry)) {
			t.Errorf("resend: %d, Retry-After %q, %s; want 429 with Retry-After %d", res.Status, res.Header.Get("Retry-After"), res.Body, wantRetry)
		}
	}
	limited(3600) // the invitation just went out
	want := []string{invitation}
	for n := 1; n <= 3; n++ {
		e.clock.Advance(time.Hour)
		res := api.Do("POST", path, nil)
		if got := recipientOf(t, res); res.Status != http.StatusOK || got.Resends != n || got.LastResentAt == nil ||
			got.Status != gifting.RecipientInviteSent {
			t.Fatalf("resend %d: %d %s", n, res.Status, res.Body)
		}
		want = append(want, invitation)
		e.wantSubjects("jane", want...)
		e.clock.Advance(30 * time.Minute)
		if n < 3 {
			limited(1800)
		}
	}
	limited(0) // three resends: never again
	e.clock.Advance(24 * time.Hour)
	limited(0)
	e.wantSubjects("jane", want...)

	t.Run("two at once send one", func(t *testing.T) {
		ann := e.add(c, "ann").Response.RecipientID
		e.clock.Advance(time.Hour)
		codes := make([]int, 2)
		var wg sync.WaitGroup
		for i := range codes {
			wg.Go(func() {
				codes[i] = api.Do("POST", "/api/campaigns/campaigns/"+c.CampaignID+"/recipients/"+ann+"/resend", nil).Status
			})
		}
		wg.Wait()
		if codes[0]+codes[1] != http.StatusOK+http.StatusTooManyRequests {
			t.Errorf("two resends at once: %v, want one 200 and one 429", codes)
		}
		e.wantSubjects("ann", invitation, invitation)
	})
	t.Run("only invited and unclaimed", func(t *testing.T) {
		draft := e.campaign(campaign.Draft)
		dora := e.add(draft, "dora").Response.RecipientID
		if res := api.Do("POST", "/api/campaigns/campaigns/"+draft.CampaignID+"/recipients/"+dora+"/resend", nil); res.Status != http.StatusConflict {
			t.Errorf("resend to a pending recipient: %d %s, want 409", res.Status, res.Body)
		}
		bob := e.add(c, "bob").Response.RecipientID
		testenv.Claim(t, e.store, e.orgID, c.CampaignID, bob)
		e.clock.Advance(time.Hour)
		if res := api.Do("POST", "/api/campaigns/campaigns/"+c.CampaignID+"/recipients/"+bob+"/resend", nil); res.Status != http.StatusConflict {
			t.Errorf("resend to a claimed recipient: %d %s, want 409", res.Status, res.Body)
		}
		e.wantSubjects("bob", invitation)
		if res := api.Do("POST", "/api/campaigns/campaigns/"+c.CampaignID+"/recipients/"+gifting.NewID()+"/resend", nil); res.Status != http.StatusNotFound {
			t.Errorf("resend to an unknown recipient: %d, want 404", res.Status)
		}
	})
}

// TestExtendClaimExpiry: the sender gives an invited recipient more time
// (PATCH claimExpiresAt): a time not later than now and than the current
// expiry, or past the longest claim period, is a 400 naming the field; the
// scheduler expires the recipient at the new time, not the old one, with
// its refund; a claimed recipient is 409.
func TestExtendClaimExpiry(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	api := e.senderAPI("extend")
	c := e.campaign(campaign.Live)
	jane := e.add(c, "jane").Response.RecipientID
	path := "/api/campaigns/campaigns/" + c.CampaignID + "/recipients/" + jane
	old := *e.recipient(c.CampaignID, jane).ClaimExpiresAt
	now := e.clock.Now()
	for name, body := range map[string]any{
		"earlier than the current": map[string]any{"claimExpiresAt": old.Add(-time.Hour)},
		"in the past":              map[string]any{"claimExpiresAt": now.Add(-time.Minute)},
		"past a year":              map[string]any{"claimExpiresAt": now.AddDate(0, 0, 366)},
		"missing":                  map[string]any{},
	} {
		res := api.Do("PATCH", path, body)
		if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), `"claimExpiresAt"`) {
			t.Errorf("%s: %d %s, want 400 naming claimExpiresAt", name, res.Status, res.Body)
		}
	}
	if got := e.recipient(c.CampaignID, jane).ClaimExpiresAt; !got.Equal(old) {
		t.Fatalf("a refused PATCH moved the expiry to %v", got)
	}
	later := old.Add(10 * 24 * time.Hour).UTC().Truncate(time.Millisecond)
	res := api.Do("PATCH", path, map[string]any{"claimExpiresAt": later})
	if got := recipientOf(t, res); res.Status != http.StatusOK || got.ClaimExpiresAt == nil || !got.ClaimExpiresAt.Equal(later) {
		t.Fatalf("extend: %d %s", res.Status, res.Body)
	}
	balance := e.balance()
	e.clock.Advance(old.Sub(now) + time.Hour)
	e.tick()
	if got := e.recipient(c.CampaignID, jane); got.Status != gifting.RecipientInviteSent {
		t.Fatalf("status %s after the old expiry, want invite_sent until the new one", got.Status)
	}
	e.clock.Advance(10 * 24 * time.Hour)
	e.tick()
	if got := e.recipient(c.CampaignID, jane); got.Status != gifting.RecipientExpired || e.balance() != balance+10 {
		t.Errorf("after the new expiry: %s, balance %d (was %d); want expired with its 10 credits back", got.Status, e.balance(), balance)
	}
	if res := api.Do("PATCH", path, map[string]any{"claimExpiresAt": e.clock.Now().Add(time.Hour)}); res.Status != http.StatusConflict {
		t.Errorf("extend an expired recipient: %d %s, want 409", res.Status, res.Body)
	}
	testenv.AssertLedgerBalanced(t, e.store, e.orgID)
}
