package dynamo_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// TestEndingACampaignLostAnswerRefundsByTicks loses the answer to the
// completion (or the deletion) of a campaign with unclaimed recipients,
// with no job queue to start their expiry: when the store cannot learn the
// outcome, the caller's retry finds the campaign completed (409) or gone
// (404), so nothing would ever start the expiry again. The scheduler's
// ticks alone give back every held credit, once.
func TestEndingACampaignLostAnswerRefundsByTicks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ends := []struct {
		name  string
		end   func(svc *service.Service, orgID, campaignID string) error
		retry gifting.Code
	}{
		{"complete", func(svc *service.Service, orgID, campaignID string) error {
			_, err := svc.Campaigns().Move(ctx, orgID, campaignID, campaign.Complete, "user-1", "")
			return err
		}, gifting.CodeConflict},
		{"delete", func(svc *service.Service, orgID, campaignID string) error {
			_, err := svc.Campaigns().Delete(ctx, orgID, campaignID, "user-1")
			return err
		}, gifting.CodeNotFound},
	}
	for _, end := range ends {
		for _, ans := range lostAnswers {
			t.Run(end.name+"/"+ans.name, func(t *testing.T) {
				t.Parallel()
				clock := &testenv.Clock{}
				fake := &lostWalletAnswerDB{DB: testenv.Client(t), first: "CAMPAIGN#"}
				s := dynamo.New(fake, testenv.Table(t), dynamo.WithClock(clock.Now))
				if _, err := seed.SeedCatalog(ctx, s); err != nil {
					t.Fatal(err)
				}
				svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet})
				orgID, _ := testenv.Org(t, s, "ended", 100)
				c := giftCampaign(t, s, orgID, 20)
				for i := range 3 {
					if _, err := s.AddRecipient(ctx, addInput(orgID, c.CampaignID, fmt.Sprintf("r%d@example.com", i))); err != nil {
						t.Fatal(err)
					}
				}
				testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
				assertBalance(t, s, orgID, 40)

				fake.arm(1, ans.err)
				err := end.end(svc, orgID, c.CampaignID)
				switch {
				case ans.resolved:
					if err != nil {
						t.Fatalf("the %s that happened answered %v", end.name, err)
					}
				case gifting.ErrorCode(err) != gifting.CodeUnavailable:
					t.Fatalf("err = %v, want SERVICE_UNAVAILABLE", err)
				default:
					if err := end.end(svc, orgID, c.CampaignID); gifting.ErrorCode(err) != end.retry {
						t.Fatalf("the caller's retry: %v, want %s", err, end.retry)
					}
				}
				if fake.lost != 1 {
					t.Fatalf("%d answers lost, want 1", fake.lost)
				}

				// The job's message would have had a lease; then the ticks
				// run it.
				sched := scheduler.New(s, svc.RunJob, testenv.Quiet)
				for range 2 {
					clock.Advance(dynamo.DueLease + time.Second)
					if err := sched.Tick(ctx); err != nil {
						t.Fatal(err)
					}
				}
				assertBalance(t, s, orgID, 100)
				st, err := s.WalletStatement(ctx, orgID, gifting.PageRequest{Page: 1, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				refunds := 0
				for _, e := range st.Entries {
					if e.Type == wallet.Refund {
						refunds++
					}
				}
				if refunds != 3 {
					t.Errorf("%d refunds, want 3 (one per unclaimed recipient)", refunds)
				}
			})
		}
	}
}
