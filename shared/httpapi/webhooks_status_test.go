package httpapi_test

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
)

// statusMove is what a recipient.status_changed message says: whose
// status moved, from what, to what.
type statusMove struct {
	RecipientID    string `json:"recipientId"`
	Status         string `json:"status"`
	PreviousStatus string `json:"previousStatus"`
}

// statusMoves are the moves of the recipient.status_changed messages of
// msgs, in their order.
func statusMoves(t *testing.T, msgs []message) []statusMove {
	t.Helper()
	var out []statusMove
	for _, m := range msgs {
		if m.Type != gifting.ChangeRecipientStatus {
			continue
		}
		var mv statusMove
		if err := json.Unmarshal(m.Data, &mv); err != nil {
			t.Fatal(err)
		}
		out = append(out, mv)
	}
	return out
}

// sameMoves reports whether got holds the moves of want, in any order.
func sameMoves(got, want []statusMove) bool {
	order := func(a, b statusMove) int {
		return cmp.Or(cmp.Compare(a.RecipientID, b.RecipientID), cmp.Compare(a.PreviousStatus, b.PreviousStatus), cmp.Compare(a.Status, b.Status))
	}
	return slices.Equal(slices.SortedFunc(slices.Values(got), order), slices.SortedFunc(slices.Values(want), order))
}

// TestWebhookRecipientStatusChanges follows two recipients through the
// moves that happen outside the fulfilment endpoint: the scheduler's
// invitation (pending → invite_sent), a claim on the claim page
// (invite_sent → processing: the claim opens the order, decision 0009) and
// an expiry by the scheduler
// (invite_sent → expired). Each committed move arrives once as
// recipient.status_changed, signed, and the change feed holds exactly
// those; a refused second claim and later ticks add none.
func TestWebhookRecipientStatusChanges(t *testing.T) {
	t.Parallel()
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	orgID, key := testenv.Org(t, s, "hooks-status", 100)
	api := testenv.NewAPI(t, s, key)
	testenv.StreamChanges(t, s, api.Service)
	rc := newReceiver(t)
	wh := createWebhook(t, api, rc.srv.URL, gifting.ChangeRecipientStatus)
	tick := func(t *testing.T) {
		t.Helper()
		if err := api.Scheduler.Tick(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	// received waits for n messages, checks their signatures and returns
	// their moves.
	received := func(t *testing.T, n int) []statusMove {
		t.Helper()
		got := rc.wait(t, n)
		var msgs []message
		for _, r := range got {
			if !verifies(t, wh.Data.Secret, r) {
				t.Errorf("the signature %q of %s does not verify", r.sig, r.body)
			}
			msgs = append(msgs, decoded(t, r))
		}
		return statusMoves(t, msgs)
	}

	// A draft campaign: its recipients wait as pending for the scheduler.
	campaignID := createCampaign(t, api, 10)
	var ids []string
	for _, who := range []string{"ada", "bob"} {
		res := api.Do("POST", addPath(campaignID), recipientBody(who+"@example.com", who))
		if res.Status != http.StatusOK || res.Map(t)["emailSent"] != false {
			t.Fatalf("add %s: %d %s; want 200, no email yet", who, res.Status, res.Body)
		}
		id, _ := res.Map(t)["recipientId"].(string)
		ids = append(ids, id)
	}
	ada, bob := ids[0], ids[1]
	invited := []statusMove{{ada, "invite_sent", "pending"}, {bob, "invite_sent", "pending"}}

	t.Run("an invitation sent by the scheduler moves pending to invite_sent", func(t *testing.T) {
		testenv.SetCampaignStatus(t, s, orgID, campaignID, campaign.Live)
		clk.add(recipient.EmailHold + time.Second)
		tick(t)
		if got := received(t, 2); !sameMoves(got, invited) {
			t.Errorf("got moves %+v; want %+v", got, invited)
		}
	})

	claimed := statusMove{ada, "processing", "invite_sent"}
	t.Run("a claim on the claim page moves invite_sent to processing", func(t *testing.T) {
		r, err := s.Recipient(t.Context(), orgID, campaignID, ada)
		if err != nil {
			t.Fatal(err)
		}
		c, err := s.Campaign(t.Context(), orgID, campaignID)
		if err != nil {
			t.Fatal(err)
		}
		pages := recipient.NewPages(testenv.Recipients(s))
		in := recipient.ClaimInput{GiftID: c.CampaignData.GiftIDs[0], ShippingAddress: recipient.ShippingAddress{
			Line1: "1 Main Street", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}}
		if _, err := pages.Claim(t.Context(), r.ClaimPageID, in); err != nil {
			t.Fatalf("claim: %v", err)
		}
		// A second claim is refused and commits nothing.
		if _, err := pages.Claim(t.Context(), r.ClaimPageID, in); gifting.ErrorCode(err) != gifting.CodeConflict {
			t.Fatalf("second claim: %v, want CONFLICT", err)
		}
		if got := received(t, 3); len(got) < 3 || got[2] != claimed {
			t.Errorf("got moves %+v; want the claim %+v last", got, claimed)
		}
	})

	expired := statusMove{bob, "expired", "invite_sent"}
	t.Run("an expiry by the scheduler moves invite_sent to expired", func(t *testing.T) {
		clk.add(gifting.DefaultClaimExpiresInDays*24*time.Hour - time.Minute)
		tick(t) // the reminders, no move
		clk.add(2 * time.Minute)
		tick(t)
		if got := received(t, 4); len(got) < 4 || got[3] != expired {
			t.Errorf("got moves %+v; want the expiry %+v last", got, expired)
		}
		if r, err := s.Recipient(t.Context(), orgID, campaignID, bob); err != nil || r.Status != gifting.RecipientExpired {
			t.Fatalf("bob is %s (%v), want expired", r.Status, err)
		}
		testenv.AssertLedgerBalanced(t, s, orgID)
	})

	t.Run("one message per committed move, in the feed as delivered", func(t *testing.T) {
		clk.add(24 * time.Hour)
		tick(t)                            // nothing left to move
		time.Sleep(300 * time.Millisecond) // time for a wrong fifth message to arrive
		want := append(slices.Clone(invited), claimed, expired)
		got := rc.wait(t, 4)
		if moves := received(t, 4); len(got) != 4 || !sameMoves(moves, want) {
			t.Errorf("the receiver got %d messages %+v; want exactly %+v", len(got), moves, want)
		}
		clk.add(webhook.FeedLag + time.Second)
		var feed []message
		for _, m := range readWholeFeed(t, api) {
			if m.Type == gifting.ChangeRecipientStatus {
				feed = append(feed, m)
			}
		}
		// The feed, like a delivery, carries each recipient as it is now
		// (webhook.Hydrate), with the status the move left.
		wantFeed := []statusMove{{ada, "processing", "pending"}, {bob, "expired", "pending"}, claimed, expired}
		if moves := statusMoves(t, feed); !sameMoves(moves, wantFeed) {
			t.Errorf("the feed holds moves %+v; want exactly %+v", moves, wantFeed)
		}
		// One page holding a recipient's two moves reads it once (a key
		// given twice would fail the batch read).
		if res := api.Do("GET", "/api/campaigns/changes?limit=100", nil); res.Status != http.StatusOK {
			t.Errorf("one page of the whole feed: %d %s", res.Status, res.Body)
		}
		var delivered []string
		for _, r := range got {
			delivered = append(delivered, r.id)
		}
		slices.Sort(delivered)
		for i, m := range feed {
			if i >= len(delivered) || m.ID != delivered[i] {
				t.Errorf("feed message %d is %s; the delivered ids are %v", i, m.ID, delivered)
			}
		}
	})
}

// TestWebhookCompletionExpiresRecipients: completing a campaign expires its
// unclaimed recipient (the campaign.expire job), which arrives once as
// recipient.status_changed from invite_sent to expired, after the one move
// from pending to invite_sent that its invitation's send made (a launched
// recipient is written pending and is invite_sent once SES accepted it).
func TestWebhookCompletionExpiresRecipients(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "hooks-status-complete", 1_000_000)
	api := testenv.NewAPI(t, s, key)
	testenv.StreamChanges(t, s, api.Service)
	rc := newReceiver(t)
	createWebhook(t, api, rc.srv.URL, gifting.ChangeRecipientStatus)
	c := liveCampaign(t, s, api, orgID, 1)
	if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/complete", nil); res.Status != http.StatusOK {
		t.Fatalf("complete: %d %s", res.Status, res.Body)
	}
	api.Jobs.Wait()
	rc.wait(t, 2)
	time.Sleep(300 * time.Millisecond) // time for a wrong third message to arrive
	got := rc.wait(t, 2)
	var msgs []message
	for _, r := range got {
		msgs = append(msgs, decoded(t, r))
	}
	moves := statusMoves(t, msgs)
	slices.SortFunc(moves, func(a, b statusMove) int { return cmp.Compare(a.PreviousStatus, b.PreviousStatus) })
	// The first move's message shows the recipient as it is when it is
	// delivered: invite_sent, or expired already when its delivery came
	// after the expiry (docs/webhooks.md: a late message never shows an
	// older status).
	if len(got) != 2 || len(moves) != 2 || moves[0].PreviousStatus != "invite_sent" || moves[0].Status != "expired" ||
		moves[1].PreviousStatus != "pending" || (moves[1].Status != "invite_sent" && moves[1].Status != "expired") {
		t.Errorf("the receiver got %d messages, moves %+v; want pending to invite_sent (or to expired, delivered late), then invite_sent to expired", len(got), moves)
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}
