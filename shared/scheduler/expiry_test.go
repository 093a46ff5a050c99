package scheduler_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

const day = 24 * time.Hour

// refunds are the refund ledger entries of a recipient.
func (e *mailEnv) refunds(recipientID string) []wallet.Entry {
	e.t.Helper()
	st, err := e.store.WalletStatement(context.Background(), e.orgID, gifting.PageRequest{Page: 1, Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []wallet.Entry
	for _, en := range st.Entries {
		if en.Type == wallet.Refund && en.RecipientID == recipientID {
			out = append(out, en)
		}
	}
	return out
}

// balance is the test organization's wallet balance.
func (e *mailEnv) balance() int64 {
	e.t.Helper()
	return e.balanceOf(e.orgID)
}

// balanceOf is orgID's wallet balance.
func (e *mailEnv) balanceOf(orgID string) int64 {
	e.t.Helper()
	w, err := e.store.Wallet(context.Background(), orgID)
	if err != nil {
		e.t.Fatal(err)
	}
	return w.Balance
}

// counts reads campaignID's status counts and creditsSpent.
func (e *mailEnv) counts(campaignID string) (map[gifting.RecipientStatus]int64, int64) {
	e.t.Helper()
	c, err := e.store.Campaign(context.Background(), e.orgID, campaignID)
	if err != nil {
		e.t.Fatal(err)
	}
	return c.LiveData.StatusCounts, c.LiveData.CreditsSpent
}

// wantClaimPageGone checks that r's claim page answers GONE, saying the
// gift expired.
func (e *mailEnv) wantClaimPageGone(r recipient.Recipient) {
	e.t.Helper()
	_, err := recipient.NewPages(testenv.Recipients(e.store)).ClaimForm(context.Background(), r.ClaimPageID)
	if gifting.ErrorCode(err) != gifting.CodeGone || err != recipient.ErrGiftExpired {
		e.t.Errorf("claim page of an expired recipient: %v, want GONE (gift expired)", err)
	}
}

func TestUnclaimedRecipientExpiresByTicks(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	jane := e.add(c, "jane").Response
	bob := e.add(c, "bob").Response
	testenv.Claim(t, e.store, e.orgID, c.CampaignID, bob.RecipientID)
	claimed := e.recipient(c.CampaignID, bob.RecipientID)
	start := e.balance()

	// The reminders go out at their times (72 and 168 hours).
	for _, h := range []time.Duration{72, 96} {
		e.clock.Advance(h * time.Hour)
		e.tick()
	}
	e.clock.Advance(gifting.DefaultClaimExpiresInDays*day - 168*time.Hour - time.Minute)
	e.tick()
	if r := e.recipient(c.CampaignID, jane.RecipientID); r.Status != gifting.RecipientInviteSent {
		t.Fatalf("a minute before its expiry the recipient is %s, want invite_sent", r.Status)
	}
	e.wantSubjects("jane", invitation, reminder1, reminder2)

	e.clock.Advance(2 * time.Minute)
	e.tick()
	r := e.recipient(c.CampaignID, jane.RecipientID)
	if r.Status != gifting.RecipientExpired || r.CreditsCharged != 0 {
		t.Fatalf("after claimExpiresInDays: status %s, creditsCharged %d; want expired, 0", r.Status, r.CreditsCharged)
	}
	e.wantClaimPageGone(r)
	if got := e.refunds(jane.RecipientID); len(got) != 1 || got[0].Amount != 10 {
		t.Errorf("refunds of the expired recipient: %+v, want one of 10 credits", got)
	}
	if got := e.balance(); got != start+10 {
		t.Errorf("balance %d, want %d (the held credits back)", got, start+10)
	}
	counts, spent := e.counts(c.CampaignID)
	if counts[gifting.RecipientExpired] != 1 || counts[gifting.RecipientInviteSent] != 0 || spent != claimed.CreditsCharged {
		t.Errorf("counters %v, creditsSpent %d; want expired 1, invite_sent 0, creditsSpent %d (the claimed one's)",
			counts, spent, claimed.CreditsCharged)
	}

	// Later ticks neither mail nor refund it again; the claimed one never
	// expires.
	e.clock.Advance(400 * day)
	e.tick()
	e.tick()
	e.wantSubjects("jane", invitation, reminder1, reminder2)
	if got := e.refunds(jane.RecipientID); len(got) != 1 {
		t.Errorf("%d refunds after more ticks, want 1", len(got))
	}
	if r := e.recipient(c.CampaignID, bob.RecipientID); r.Status != gifting.RecipientProcessing || r.CreditsCharged != claimed.CreditsCharged {
		t.Errorf("claimed recipient is %s with %d credits, want processing (its order open) with %d", r.Status, r.CreditsCharged, claimed.CreditsCharged)
	}
	testenv.AssertLedgerBalanced(t, e.store, e.orgID)
}

func TestCampaignClaimExpiresInDaysSetsTheExpiry(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c, err := testenv.CreateCampaign(context.Background(), e.store, e.orgID, campaign.Campaign{
		Name: "Short", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{"gift-artisan-coffee"}, EmailTemplateID: "tmpl-meeting-booker",
			CreditsPerRecipient: 10, ClaimExpiresInDays: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Live)
	jane := e.add(c, "jane").Response
	e.clock.Advance(2*day + time.Minute)
	e.tick()
	if r := e.recipient(c.CampaignID, jane.RecipientID); r.Status != gifting.RecipientExpired {
		t.Errorf("after the campaign's 2 days the recipient is %s, want expired", r.Status)
	}
	testenv.AssertLedgerBalanced(t, e.store, e.orgID)
}

func TestCompletingACampaignExpiresEveryUnclaimedRecipient(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	var unclaimed []string
	for _, name := range []string{"ann", "ben", "cat"} {
		unclaimed = append(unclaimed, e.add(c, name).Response.RecipientID)
	}
	dan := e.add(c, "dan").Response.RecipientID
	claimed := testenv.Claim(t, e.store, e.orgID, c.CampaignID, dan)
	start := e.balance()

	done, err := e.svc.Campaigns().Move(context.Background(), e.orgID, c.CampaignID, campaign.Complete, "user-1", "")
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != campaign.Completed || done.CompletionData.StatusCounts[gifting.RecipientInviteSent] != 3 {
		t.Errorf("completion answer: %s with %v, want completed with the counters at completion", done.Status, done.CompletionData.StatusCounts)
	}
	// The job, run to its end twice (a redelivered message).
	for range 2 {
		j := &jobs.Job{Kind: gifting.JobCampaignExpire, OrgID: e.orgID, Ref: c.CampaignID}
		for j != nil {
			if j, err = e.svc.RunJob(context.Background(), *j); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, id := range unclaimed {
		if r := e.recipient(c.CampaignID, id); r.Status != gifting.RecipientExpired {
			t.Errorf("recipient %s is %s, want expired", id, r.Status)
		}
		if got := e.refunds(id); len(got) != 1 || got[0].Amount != 10 {
			t.Errorf("refunds of %s: %+v, want one of 10 credits", id, got)
		}
	}
	if r := e.recipient(c.CampaignID, dan); r.Status != gifting.RecipientProcessing {
		t.Errorf("the claimed recipient is %s, want processing (its order open)", r.Status)
	}
	if got := e.balance(); got != start+30 {
		t.Errorf("balance %d, want %d", got, start+30)
	}
	counts, spent := e.counts(c.CampaignID)
	if counts[gifting.RecipientExpired] != 3 || counts[gifting.RecipientInviteSent] != 0 || spent != claimed.CreditsCharged {
		t.Errorf("counters %v, creditsSpent %d; want expired 3, invite_sent 0, creditsSpent %d", counts, spent, claimed.CreditsCharged)
	}
	testenv.AssertLedgerBalanced(t, e.store, e.orgID)
}

func TestExpiryRacingAClaimHasOneWinner(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	const n = 6
	ids := make([]string, n)
	for i := range ids {
		ids[i] = e.add(c, "racer"+string(rune('a'+i))).Response.RecipientID
	}
	start := e.balance()
	e.clock.Advance(gifting.DefaultClaimExpiresInDays*day + time.Minute)

	expiredBy := make([]bool, n)
	claimErr := make([]error, n)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(2)
		go func() {
			defer wg.Done()
			var err error
			if expiredBy[i], err = testenv.Recipients(e.store).Expire(context.Background(), e.orgID, c.CampaignID, id, true); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			_, claimErr[i] = testenv.Recipients(e.store).Claim(context.Background(), e.orgID, c.CampaignID, id, recipient.ClaimInput{
				GiftID: c.CampaignData.GiftIDs[0],
				ShippingAddress: recipient.ShippingAddress{
					Line1: "1 Main Street", City: "Springfield", State: "IL", Zip: "62701", Country: "US",
				},
			})
		}()
	}
	wg.Wait()
	var want int64 = start
	for i, id := range ids {
		r := e.recipient(c.CampaignID, id)
		switch {
		case expiredBy[i] && gifting.ErrorCode(claimErr[i]) == gifting.CodeGone:
			if r.Status != gifting.RecipientExpired || len(e.refunds(id)) != 1 {
				t.Errorf("%s: the expiry won but it is %s with %d refunds", id, r.Status, len(e.refunds(id)))
			}
			want += 10
		case !expiredBy[i] && claimErr[i] == nil:
			if r.Status != gifting.RecipientProcessing {
				t.Errorf("%s: the claim won but it is %s", id, r.Status)
			}
			want += 10 - r.CreditsCharged
		default:
			t.Errorf("%s: expired %v, claim error %v; want exactly one winner", id, expiredBy[i], claimErr[i])
		}
	}
	if got := e.balance(); got != want {
		t.Errorf("balance %d, want %d", got, want)
	}
	testenv.AssertLedgerBalanced(t, e.store, e.orgID)
}
