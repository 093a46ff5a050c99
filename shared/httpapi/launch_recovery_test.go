package httpapi_test

import (
	"context"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// ledgerSum adds up org's whole ledger: top-ups and refunds in, debits out.
func ledgerSum(t *testing.T, s *dynamo.Store, orgID string) (sum int64, byType map[wallet.EntryType]int) {
	t.Helper()
	byType = map[wallet.EntryType]int{}
	for page := 1; ; page++ {
		st, err := s.WalletStatement(context.Background(), orgID, gifting.PageRequest{Page: page, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range st.Entries {
			byType[e.Type]++
			if e.Type == wallet.Debit {
				sum -= e.Amount
			} else {
				sum += e.Amount
			}
		}
		if page*100 >= st.Total {
			return sum, byType
		}
	}
}

// assertLaunchEnded checks that a launch of contacts paid ended live with
// want recipients, charged exactly want × price in all, with one refund
// entry when some contacts did not become recipients, and that the ledger
// sums to the balance.
func assertLaunchEnded(t *testing.T, api *testenv.API, s *dynamo.Store, orgID, campaignID string, credits, contacts, want, price int64) {
	t.Helper()
	got := fetchCampaign(t, api, campaignID)
	if r := launchRecipientCount(t, s, orgID, campaignID); got.Status != campaign.Live || int64(r) != want || got.TotalRecipients != want {
		t.Fatalf("campaign %s with %d recipients (%d counted); want live with %d", got.Status, r, got.TotalRecipients, want)
	}
	lp := got.LaunchProgress
	if lp == nil || lp.Contacts != contacts || lp.Created != want || lp.FinishedAt == nil || lp.Refunded == nil || *lp.Refunded != (contacts-want)*price {
		t.Errorf("launchProgress = %+v; want %d contacts, %d created, finished, %d refunded", lp, contacts, want, (contacts-want)*price)
	}
	balance := walletBalance(t, s, orgID)
	if balance != credits-want*price {
		t.Errorf("balance %d, want %d: exactly %d recipients × %d taken", balance, credits-want*price, want, price)
	}
	sum, byType := ledgerSum(t, s, orgID)
	if sum != balance {
		t.Errorf("ledger sums to %d, balance is %d", sum, balance)
	}
	wantRefunds := 0
	if want < contacts {
		wantRefunds = 1
	}
	if byType[wallet.Refund] != wantRefunds || byType[wallet.Debit] != 1 {
		t.Errorf("ledger entries %v; want 1 debit and %d refund", byType, wantRefunds)
	}
}

// tickUntilLive runs ticks, a lease apart, until the campaign is live.
func tickUntilLive(t *testing.T, api *testenv.API, sched *scheduler.Scheduler, clock *testenv.Clock, campaignID string) {
	t.Helper()
	for range 5 {
		clock.Advance(dynamo.DueLease + time.Second)
		if err := sched.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
		if fetchCampaign(t, api, campaignID).Status == campaign.Live {
			return
		}
	}
	t.Fatal("the campaign is not live after 5 ticks")
}

// TestLaunchFinishesByTicks strands launches the ways a process can (the
// job never sent, the job lost after its first slice, a contact deleted
// meanwhile) and lets only scheduler ticks finish them: no second launch
// call.
func TestLaunchFinishesByTicks(t *testing.T) {
	t.Parallel()
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	const credits = 1_000_000
	for _, tt := range []struct {
		name       string
		contacts   int
		firstSlice bool // one slice ran before the job was lost
		deleted    int  // contacts deleted while the launch waits
	}{
		{"job never ran", 60, false, 0},
		{"job lost after its first slice", 620, true, 0},
		{"job lost after its first slice, contacts deleted: refund", 620, true, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clock := &testenv.Clock{}
			s := testenv.Store(t, dynamo.WithClock(clock.Now))
			orgID, key := testenv.Org(t, s, "stranded", credits)
			// The queue holds the job and never runs it: it is lost.
			api, _ := testenv.HeldAPI(t, s, key)
			listID, ids := listWithContacts(t, s, orgID, tt.contacts)
			c := launchReady(t, api, gifts[1], listID)
			if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
				t.Fatalf("launch: %d %s", res.Status, res.Body)
			}
			if tt.firstSlice {
				if _, done, err := testenv.Campaigns(s).LaunchSlice(ctx, orgID, c.CampaignID, ""); err != nil || done {
					t.Fatalf("first slice: done %v, %v", done, err)
				}
			}
			for _, id := range ids[len(ids)-tt.deleted:] {
				if err := contact.NewApp(s, nil).DeleteContact(ctx, orgID, id); err != nil {
					t.Fatal(err)
				}
			}
			// Before the lease runs out the launch is left to its job.
			if err := api.Scheduler.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			got := fetchCampaign(t, api, c.CampaignID)
			if got.Status != campaign.Preparing || got.LaunchProgress == nil || got.LaunchProgress.FinishedAt != nil {
				t.Fatalf("before the lease ends: %s, launchProgress %+v; want preparing, unfinished", got.Status, got.LaunchProgress)
			}
			tickUntilLive(t, api, api.Scheduler, clock, c.CampaignID)
			assertLaunchEnded(t, api, s, orgID, c.CampaignID, credits, int64(tt.contacts), int64(tt.contacts-tt.deleted), price)
		})
	}
}

func TestTwoTicksAtOnceWorkOneLaunch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	const n, deleted, credits = 700, 2, 1_000_000
	clock := &testenv.Clock{}
	s := testenv.Store(t, dynamo.WithClock(clock.Now))
	orgID, key := testenv.Org(t, s, "overlap", credits)
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Jobs: lostQueue{}})
	srv := httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet})
	api := testenv.HandlerAPI(t, srv.Handler(httpapi.Groups...), key)
	listID, ids := listWithContacts(t, s, orgID, n)
	c := launchReady(t, api, gifts[1], listID)
	if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	for _, id := range ids[:deleted] {
		if err := contact.NewApp(s, nil).DeleteContact(ctx, orgID, id); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(dynamo.DueLease + time.Second)
	// Two schedulers, as two overlapping worker invocations.
	a, b := scheduler.New(s, svc.RunJob, testenv.Quiet), scheduler.New(s, svc.RunJob, testenv.Quiet)
	var wg sync.WaitGroup
	for _, sched := range []*scheduler.Scheduler{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := sched.Tick(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	assertLaunchEnded(t, api, s, orgID, c.CampaignID, credits, n, n-deleted, price)
	// More ticks, later, change nothing.
	tickUntilLive(t, api, a, clock, c.CampaignID)
	assertLaunchEnded(t, api, s, orgID, c.CampaignID, credits, n, n-deleted, price)
}
