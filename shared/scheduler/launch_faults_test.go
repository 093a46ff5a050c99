package scheduler_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// worker names the worker a storage call comes from, in its context.
type worker struct{}

// fault is what happens to a call: nothing, a timeout before DynamoDB
// sees it, or a timeout after DynamoDB applied it (the answer is lost).
type fault int

const (
	pass fault = iota
	timeout
	lostAnswer
)

// errTimeout is a storage timeout as the SDK reports one.
var errTimeout = errors.New("operation error DynamoDB: request canceled, context deadline exceeded")

// faultyDB applies rule to every write of a worker (a call whose context
// names one): DynamoDB Local cannot time out on demand.
type faultyDB struct {
	dynamo.DB
	mu   sync.Mutex
	rule func(who, op, sk string) fault
}

func (d *faultyDB) fault(ctx context.Context, op string, k map[string]types.AttributeValue) fault {
	who, _ := ctx.Value(worker{}).(string)
	if who == "" {
		return pass
	}
	sk, _ := k["SK"].(*types.AttributeValueMemberS)
	if sk == nil {
		return pass
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.rule(who, op, sk.Value)
}

// apply runs call under f.
func apply[T any](f fault, call func() (T, error)) (T, error) {
	var zero T
	if f == timeout {
		return zero, errTimeout
	}
	out, err := call()
	if f == lostAnswer && err == nil {
		return zero, errTimeout
	}
	return out, err
}

func (d *faultyDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return apply(d.fault(ctx, "put", in.Item), func() (*dynamodb.PutItemOutput, error) { return d.DB.PutItem(ctx, in, opts...) })
}

func (d *faultyDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return apply(d.fault(ctx, "update", in.Key), func() (*dynamodb.UpdateItemOutput, error) { return d.DB.UpdateItem(ctx, in, opts...) })
}

func (d *faultyDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	var k map[string]types.AttributeValue
	if u := in.TransactItems[0].Update; u != nil {
		k = u.Key
	}
	return apply(d.fault(ctx, "transact", k), func() (*dynamodb.TransactWriteItemsOutput, error) {
		return d.DB.TransactWriteItems(ctx, in, opts...)
	})
}

// TestTwoWorkersFailOneSlice runs the first slice of a launch in two
// workers at once (a job and a tick, two processes) and fails both in the
// ways storage fails under load; then a user claims a recipient of the
// slice before it is counted, and only scheduler ticks run. The launch goes
// live within two leases, its counters (total, each status, credits) equal
// its recipients, the ledger sums to the balance, and every invitation goes
// out once.
func TestTwoWorkersFailOneSlice(t *testing.T) {
	t.Parallel()
	const n, price = 150, 10 // two slices of invited recipients
	counting := func(op, sk string) bool { return op == "transact" && strings.HasPrefix(sk, "LAUNCH#") }
	for _, tt := range []struct {
		name string
		rule func(who, op, sk string) fault
	}{
		{"both counts time out", func(_, op, sk string) fault {
			if counting(op, sk) {
				return timeout
			}
			return pass
		}},
		{"one count applied and its answer lost, the other's puts time out", func(who, op, sk string) fault {
			switch {
			case who == "A" && counting(op, sk):
				return lostAnswer
			case who == "B" && op == "put" && strings.HasPrefix(sk, "RCPT#"):
				return timeout
			}
			return pass
		}},
		{"both time out halfway through their puts", func() func(who, op, sk string) fault {
			puts := map[string]int{}
			return func(who, op, sk string) fault {
				if op == "put" && strings.HasPrefix(sk, "RCPT#") {
					if puts[who]++; puts[who] > 40 {
						return timeout
					}
				}
				return pass
			}
		}()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clock := &testenv.Clock{}
			db := &faultyDB{DB: testenv.Client(t), rule: tt.rule}
			s := dynamo.New(db, testenv.Table(t), dynamo.WithClock(clock.Now))
			mailer := &mail.Memory{}
			svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Mailer: mailer})
			orgID, campaignID := invitingLaunch(t, s, n, price)

			var wg sync.WaitGroup
			for _, who := range []string{"A", "B"} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					j := &jobs.Job{Kind: gifting.JobLaunch, OrgID: orgID, Ref: campaignID}
					for step := 0; j != nil && step < 10; step++ {
						var err error
						if j, err = svc.RunJob(context.WithValue(ctx, worker{}, who), *j); err != nil {
							return // this worker is down
						}
					}
				}()
			}
			wg.Wait()
			// A user claims a recipient the failed slice wrote, before any
			// run counts it.
			if ids := recipientIDs(t, s, orgID, campaignID); len(ids) > 0 {
				testenv.Claim(t, s, orgID, campaignID, ids[0])
			}
			sched := scheduler.New(s, svc.RunJob, testenv.Quiet)
			for range 2 {
				clock.Advance(dynamo.DueLease + time.Second)
				if err := sched.Tick(ctx); err != nil {
					t.Fatal(err)
				}
			}
			c, err := s.Campaign(ctx, orgID, campaignID)
			if err != nil {
				t.Fatal(err)
			}
			if c.Status != campaign.Live {
				t.Fatalf("campaign %s two leases after its workers failed, want live", c.Status)
			}
			// Invitations left by the failed workers go out after their
			// claims' lease.
			clock.Advance(gifting.EmailLease)
			for range 2 {
				if err := sched.Tick(ctx); err != nil {
					t.Fatal(err)
				}
			}
			assertCountersMatch(t, s, orgID, campaignID, n, price)
			assertInvitedOnce(t, s, mailer, orgID, campaignID)
			testenv.AssertLedgerBalanced(t, s, orgID)
		})
	}
}

// invitingLaunch is an organization with a launched campaign over n
// contacts at price credits each, whose template invites at once.
func invitingLaunch(t *testing.T, s *dynamo.Store, n int, price int64) (orgID, campaignID string) {
	t.Helper()
	return launchedWith(t, s, n, price, "tmpl-meeting-booker")
}

// allRecipients reads every recipient of a campaign, whatever its counters
// say: a sort other than createdAt reads the whole Slim partition.
func allRecipients(t *testing.T, s *dynamo.Store, orgID, campaignID string) []gifting.Recipient {
	t.Helper()
	var out []gifting.Recipient
	for page := 1; ; page++ {
		p, err := s.ListRecipients(context.Background(), orgID, campaignID, gifting.RecipientQuery{
			SortBy: "email", Order: gifting.Asc, Page: gifting.PageRequest{Page: page, Limit: gifting.MaxLimit}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.Recipients...)
		if len(p.Recipients) < gifting.MaxLimit {
			return out
		}
	}
}

// recipientIDs are the ids of a campaign's recipients.
func recipientIDs(t *testing.T, s *dynamo.Store, orgID, campaignID string) []string {
	t.Helper()
	var ids []string
	for _, r := range allRecipients(t, s, orgID, campaignID) {
		ids = append(ids, r.RecipientID)
	}
	return ids
}

// assertCountersMatch checks that a campaign's counters equal its
// recipients: n in all, each status counted as many times as recipients
// are in it, the credits spent their charges.
func assertCountersMatch(t *testing.T, s *dynamo.Store, orgID, campaignID string, n int, price int64) {
	t.Helper()
	c, err := s.Campaign(context.Background(), orgID, campaignID)
	if err != nil {
		t.Fatal(err)
	}
	rs := allRecipients(t, s, orgID, campaignID)
	byStatus := map[gifting.RecipientStatus]int64{}
	var charged int64
	for _, r := range rs {
		byStatus[r.Status]++
		charged += r.CreditsCharged
	}
	if len(rs) != n || c.TotalRecipients != int64(n) || c.LiveData.CreditsSpent != charged || charged != int64(n)*price {
		t.Errorf("%d recipients charged %d; campaign counts %d, %d spent; want %d, %d",
			len(rs), charged, c.TotalRecipients, c.LiveData.CreditsSpent, n, int64(n)*price)
	}
	for _, st := range gifting.RecipientStatuses {
		if got := c.LiveData.StatusCounts[st]; got != byStatus[st] {
			t.Errorf("status %s counted %d, %d recipients in it", st, got, byStatus[st])
		}
	}
}

// assertInvitedOnce checks that every recipient not claimed was sent its
// invitation exactly once, and is invite_sent.
func assertInvitedOnce(t *testing.T, s *dynamo.Store, mailer *mail.Memory, orgID, campaignID string) {
	t.Helper()
	sent := map[string]int{}
	for _, m := range mailer.Sent() {
		if m.Kind == "addressConfirmation" {
			sent[m.RecipientID]++
		}
	}
	for _, r := range allRecipients(t, s, orgID, campaignID) {
		switch {
		case r.Claimed():
			if sent[r.RecipientID] > 1 {
				t.Errorf("claimed recipient %s invited %d times", r.RecipientID, sent[r.RecipientID])
			}
		case sent[r.RecipientID] != 1 || r.Status != gifting.RecipientInviteSent:
			t.Errorf("recipient %s is %s, invited %d times; want invite_sent, invited once", r.RecipientID, r.Status, sent[r.RecipientID])
		}
	}
}
