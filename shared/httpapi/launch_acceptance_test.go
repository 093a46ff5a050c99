package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// lostQueue is a queue whose sends fail: SQS unreachable right after the
// launch committed.
type lostQueue struct{}

func (lostQueue) Enqueue(context.Context, jobs.Job) error {
	return errors.New("sqs: send message: connection reset")
}

func TestDefectLaunchStrandedWhenEnqueueFails(t *testing.T) {
	t.Parallel()
	clock := &testenv.Clock{}
	s := testenv.Store(t, dynamo.WithClock(clock.Now))
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	const n, credits = 60, 1_000_000
	orgID, key := testenv.Org(t, s, "lost", credits)
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Jobs: lostQueue{}})
	srv := httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet})
	api := testenv.HandlerAPI(t, srv.Handler(httpapi.Groups...), key)
	listID, _ := listWithContacts(t, s, orgID, n)
	c := launchReady(t, api, gifts[1], listID)

	res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
	if res.Status != http.StatusAccepted {
		t.Fatalf("launch with the queue down: %d %s; want 202, the launch is committed", res.Status, res.Body)
	}
	if b := walletBalance(t, s, orgID); b != credits-n*price {
		t.Fatalf("balance %d, want %d taken", b, credits-n*price)
	}
	got := fetchCampaign(t, api, c.CampaignID)
	if lp := got.LaunchProgress; got.Status != campaign.Preparing || lp == nil || lp.Contacts != n || lp.Created != 0 || lp.FinishedAt != nil {
		t.Errorf("after the launch: %s, launchProgress %+v; want preparing, %d contacts, none created yet", got.Status, lp, n)
	}
	// A second launch is a plain conflict and takes nothing.
	assertError(t, api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil), http.StatusConflict, "CONFLICT")
	// Nobody calls launch again: the scheduler's ticks finish it.
	tickUntilLive(t, api, scheduler.New(s, svc.RunJob, testenv.Quiet), clock, c.CampaignID)
	assertLaunchEnded(t, api, s, orgID, c.CampaignID, credits, n, n, price)
}

func TestDefectConcurrentLaunchReplays(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	const campaigns, calls, credits = 8, 10, 1_000_000
	orgID, key := testenv.Org(t, s, "replays", credits)
	// 80 launch calls in a moment: more than the default per-minute budget.
	if err := s.SetRateLimits(t.Context(), orgID, map[gifting.RateClass]int{gifting.RateLaunch: campaigns * calls}); err != nil {
		t.Fatal(err)
	}
	api := testenv.NewAPI(t, s, key)
	listID, _ := listWithContacts(t, s, orgID, 2)
	for i := range campaigns {
		c := launchReady(t, api, gifts[1], listID)
		t.Run(fmt.Sprintf("campaign %d", i), func(t *testing.T) {
			idem := "launch-" + c.CampaignID
			res := make([]testenv.Response, calls)
			var wg sync.WaitGroup
			for k := range res {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res[k] = api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil, "Idempotency-Key", idem)
				}()
			}
			wg.Wait()
			replayed := 0
			for k, r := range res {
				if r.Status != http.StatusAccepted || string(r.Body) != string(res[0].Body) {
					t.Errorf("call %d: %d %s; want the same 202 as every other call", k, r.Status, r.Body)
				}
				if r.Header.Get("Idempotent-Replayed") == "true" {
					replayed++
				}
			}
			if replayed != calls-1 {
				t.Errorf("%d calls marked Idempotent-Replayed, want %d (all but the first)", replayed, calls-1)
			}
		})
	}
	api.Jobs.Wait()
	if b := walletBalance(t, s, orgID); b != credits-campaigns*2*price {
		t.Errorf("balance %d, want %d: each campaign paid once", b, credits-campaigns*2*price)
	}
}
