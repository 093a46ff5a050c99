package scheduler_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// droppedQueue accepts every job and delivers none: a message lost after
// SQS took it. It keeps what it was given.
type droppedQueue struct {
	mu   sync.Mutex
	jobs []jobs.Job
}

func (q *droppedQueue) Enqueue(_ context.Context, j jobs.Job) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, j)
	return nil
}

// ending is how a campaign ends, freeing the credits held for its
// unclaimed recipients.
type ending struct {
	name string
	end  func(svc *service.Service, orgID, campaignID string) error
}

var endings = []ending{
	{"complete", func(svc *service.Service, orgID, campaignID string) error {
		_, err := svc.Campaigns().Move(context.Background(), orgID, campaignID, campaign.Complete, "user-1", "")
		return err
	}},
	{"delete", func(svc *service.Service, orgID, campaignID string) error {
		_, err := svc.Campaigns().Delete(context.Background(), orgID, campaignID, "user-1")
		return err
	}},
}

// endingService is the use cases over e's store with queue q (none when
// nil), for the request that ends a campaign.
func (e *mailEnv) endingService(q jobs.Queue) *service.Service {
	return service.New(e.store, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Jobs: q})
}

// expiryDue returns the due items of kind campaign.expire.
func (e *mailEnv) expiryDue() []dynamo.Due {
	e.t.Helper()
	due, err := e.store.DueItems(context.Background(), e.clock.Now().Add(400*day))
	if err != nil {
		e.t.Fatal(err)
	}
	var out []dynamo.Due
	for _, d := range due {
		if d.Kind == gifting.JobCampaignExpire {
			out = append(out, d)
		}
	}
	return out
}

// TestEndedCampaignRefundsByTicksWithoutItsJob: completing or deleting a
// campaign whose expiry job never runs (no queue, or a queue that loses the
// message) still gives back the credits held for its unclaimed recipients
// within a lease, through the scheduler's ticks alone, once each; the
// claimed recipient keeps its gift, and the expiry then leaves the due
// index.
func TestEndedCampaignRefundsByTicksWithoutItsJob(t *testing.T) {
	t.Parallel()
	queues := []struct {
		name  string
		queue func() jobs.Queue
	}{
		{"no queue", func() jobs.Queue { return nil }},
		{"the queue drops the message", func() jobs.Queue { return &droppedQueue{} }},
	}
	for _, end := range endings {
		for _, q := range queues {
			t.Run(end.name+"/"+q.name, func(t *testing.T) {
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

				if err := end.end(e.endingService(q.queue()), e.orgID, c.CampaignID); err != nil {
					t.Fatal(err)
				}
				e.clock.Advance(dynamo.DueLease + time.Second)
				e.tick()

				for _, id := range unclaimed {
					if r := e.recipient(c.CampaignID, id); r.Status != gifting.RecipientExpired || r.CreditsCharged != 0 {
						t.Errorf("recipient %s is %s holding %d credits; want expired, 0", id, r.Status, r.CreditsCharged)
					}
				}
				if got := e.balance(); got != start+30 {
					t.Errorf("balance %d a lease after the %s; want %d (3 × 10 held credits back)", got, end.name, start+30)
				}
				if r := e.recipient(c.CampaignID, dan); r.Status != gifting.RecipientProcessing || r.CreditsCharged != claimed.CreditsCharged {
					t.Errorf("the claimed recipient is %s holding %d; want processing (its order open) holding %d", r.Status, r.CreditsCharged, claimed.CreditsCharged)
				}
				if due := e.expiryDue(); len(due) != 0 {
					t.Errorf("the expiry is still due after its work: %+v", due)
				}

				// Later ticks refund nothing more.
				for range 2 {
					e.clock.Advance(dynamo.DueLease + time.Second)
					e.tick()
				}
				for _, id := range unclaimed {
					if got := e.refunds(id); len(got) != 1 || got[0].Amount != 10 {
						t.Errorf("refunds of %s: %+v; want one of 10 credits", id, got)
					}
				}
				if got := e.balance(); got != start+30 {
					t.Errorf("balance %d after more ticks; want %d", got, start+30)
				}
				testenv.AssertLedgerBalanced(t, e.store, e.orgID)
			})
		}
	}
}

// TestCampaignExpiryContinuesFromItsCursorByTicks: the job's message runs
// one slice of a campaign's expiry and the process dies; the ticks
// continue from where the slice stopped until every unclaimed recipient of
// the campaign, over several slices, has expired with exactly one refund.
func TestCampaignExpiryContinuesFromItsCursorByTicks(t *testing.T) {
	t.Parallel()
	for _, end := range endings {
		t.Run(end.name, func(t *testing.T) {
			t.Parallel()
			e := newMailEnv(t)
			// Added to the draft, they stay pending: no email to send.
			c := e.campaign(campaign.Draft)
			const n = 105
			for i := range n {
				e.add(c, fmt.Sprintf("r%03d", i))
			}
			testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Live)
			start := e.balance()

			q := &droppedQueue{}
			if err := end.end(e.endingService(q), e.orgID, c.CampaignID); err != nil {
				t.Fatal(err)
			}
			if len(q.jobs) != 1 || q.jobs[0].Kind != gifting.JobCampaignExpire {
				t.Fatalf("jobs enqueued: %+v; want the campaign's expiry", q.jobs)
			}
			next, err := e.svc.RunJob(context.Background(), q.jobs[0])
			if err != nil {
				t.Fatal(err)
			}
			if next == nil {
				t.Fatalf("the first slice ended the expiry of %d recipients; want a next slice", n)
			}
			if got := e.balance(); got <= start || got >= start+n*10 {
				t.Fatalf("balance %d after one slice; want part of the %d held credits back", got, n*10)
			}
			if due := e.expiryDue(); len(due) != 1 || due[0].Cursor != next.Cursor {
				t.Fatalf("due after one slice: %+v; want the expiry, at the next slice's cursor %q", due, next.Cursor)
			}

			e.clock.Advance(dynamo.DueLease + time.Second)
			e.tick()
			e.clock.Advance(dynamo.DueLease + time.Second)
			e.tick()
			if got := e.balance(); got != start+n*10 {
				t.Errorf("balance %d after the ticks; want %d (every held credit back, once)", got, start+n*10)
			}
			if due := e.expiryDue(); len(due) != 0 {
				t.Errorf("the expiry is still due after its work: %+v", due)
			}
			if end.name == "complete" {
				counts, spent := e.counts(c.CampaignID)
				if counts[gifting.RecipientExpired] != n || counts[gifting.RecipientPending] != 0 || spent != 0 {
					t.Errorf("counters %v, creditsSpent %d; want %d expired, none pending, 0 spent", counts, spent, n)
				}
			}
			testenv.AssertLedgerBalanced(t, e.store, e.orgID)
		})
	}
}
