package wallet_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// The use cases against the real storage (DynamoDB Local). The decisions
// they run are tested without it (decide_test.go); these tests are
// skipped when no DynamoDB Local runs (make test starts one).

// dynamoLocal is a client of the run's DynamoDB Local and a fresh table,
// or skips the test when there is none.
func dynamoLocal(t *testing.T) (dynamo.DB, string) {
	t.Helper()
	if os.Getenv("DYNAMODB_ENDPOINT") == "" {
		t.Skip("DYNAMODB_ENDPOINT is not set: the wallet's use cases run against DynamoDB Local (make test)")
	}
	return testenv.Client(t), testenv.Table(t)
}

// lostAnswerDB commits every TransactWriteItems on DynamoDB Local and then
// reports a failure, as a timeout after the write reached the table does.
type lostAnswerDB struct{ dynamo.DB }

func (l lostAnswerDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if _, err := l.DB.TransactWriteItems(ctx, in, opts...); err != nil {
		return nil, err
	}
	return nil, errors.New("read tcp: i/o timeout")
}

// TestTopUpOnce: an operator's top-up re-run under the same request id,
// after a timeout that hid its success or from several shells at once,
// adds the credits once, and the re-run reports the first run's entry.
func TestTopUpOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, table := dynamoLocal(t)
	s := dynamo.New(client, table)
	req := func(org, id string, credits int64, reason string) wallet.TopUpRequest {
		return wallet.TopUpRequest{OrgID: org, RequestID: id, Credits: credits, Reason: reason}
	}
	balance := func(t *testing.T, org string) int64 {
		t.Helper()
		w, err := s.Wallet(ctx, org)
		if err != nil {
			t.Fatal(err)
		}
		return w.Balance
	}

	t.Run("re-run after a timeout that hid the commit", func(t *testing.T) {
		org, _ := testenv.Org(t, s, "lost", 100)
		lost := dynamo.New(lostAnswerDB{client}, table)
		if _, err := wallet.NewApp(lost).TopUpOnce(ctx, req(org, "inv-7", 50, "invoice 7")); err == nil {
			t.Fatal("the lost answer was not reported")
		}
		if got := balance(t, org); got != 150 {
			t.Fatalf("balance after the hidden commit = %d, want 150", got)
		}
		res, err := wallet.NewApp(s).TopUpOnce(ctx, req(org, "inv-7", 50, "invoice 7"))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Replayed || res.Wallet.Balance != 150 || res.Entry.Amount != 50 || res.Entry.BalanceAfter != 150 || res.Entry.Reason != "invoice 7" {
			t.Errorf("re-run = %+v; want a replay of the 50-credit entry, balance 150", res)
		}
		if got := balance(t, org); got != 150 {
			t.Errorf("balance after the re-run = %d, want 150", got)
		}
	})

	t.Run("same request id from many processes at once", func(t *testing.T) {
		org, _ := testenv.Org(t, s, "race", 0)
		const runs = 6
		results := make([]wallet.TopUpResult, runs)
		errs := make([]error, runs)
		var wg sync.WaitGroup
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A store each: no shared in-process wallet lock, as
				// with operators in several shells.
				results[i], errs[i] = wallet.NewApp(dynamo.New(client, table)).TopUpOnce(ctx, req(org, "inv-8", 1000, "invoice 8"))
			}()
		}
		wg.Wait()
		applied, entryIDs := 0, map[string]bool{}
		for i := range runs {
			if errs[i] != nil {
				t.Fatalf("run %d: %v", i, errs[i])
			}
			if !results[i].Replayed {
				applied++
			}
			entryIDs[results[i].Entry.EntryID] = true
		}
		if applied != 1 || len(entryIDs) != 1 {
			t.Errorf("%d runs applied, %d distinct entries; want 1 and 1", applied, len(entryIDs))
		}
		if got := balance(t, org); got != 1000 {
			t.Errorf("balance = %d, want 1000", got)
		}
	})

	cases := []struct {
		name string
		req  wallet.TopUpRequest
		want gifting.Code
	}{
		{"other credits under a used id", req("used", "inv-9", 20, "invoice 9"), gifting.CodeIdempotencyMismatch},
		{"other reason under a used id", req("used", "inv-9", 10, "invoice 10"), gifting.CodeIdempotencyMismatch},
		{"empty request id", req("used", "", 10, "invoice 9"), gifting.CodeValidation},
		{"request id with a space", req("used", "inv 9", 10, "invoice 9"), gifting.CodeValidation},
		{"no credits", req("used", "inv-11", 0, ""), gifting.CodeValidation},
		{"unknown organization", req("nobody", "inv-9", 10, "invoice 9"), gifting.CodeNotFound},
	}
	org, _ := testenv.Org(t, s, "used", 5)
	if _, err := wallet.NewApp(s).TopUpOnce(ctx, req(org, "inv-9", 10, "invoice 9")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := wallet.NewApp(s).TopUpOnce(ctx, tt.req); gifting.ErrorCode(err) != tt.want {
				t.Errorf("error = %v, want %s", err, tt.want)
			}
			if got := balance(t, org); got != 15 {
				t.Errorf("balance = %d, want 15: nothing written", got)
			}
		})
	}
}

// slowDB takes a while before each transaction, as a loaded network or
// table does: DynamoDB Local answers too fast to show a race that a slow
// commit loses.
type slowDB struct {
	dynamo.DB
	by    time.Duration
	calls *atomic.Int64
}

func (d slowDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	d.calls.Add(1)
	time.Sleep(d.by)
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

// TestChangeOutlastsASteadyStream: while another process changes the
// wallet again and again (a campaign's completion refunds its unclaimed
// recipients one by one), a change made here still goes through, and the
// ledger sums to the balance. A change that paused after losing the race
// and then committed on the balance found before its pause lost every
// race after it, until it gave up with a 5xx.
func TestChangeOutlastsASteadyStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, table := dynamoLocal(t)
	var calls atomic.Int64
	s := dynamo.New(slowDB{client, 3 * time.Millisecond, &calls}, table)
	org, _ := testenv.Org(t, s, "stream", 1_000_000)

	stop := make(chan struct{})
	streamed := make(chan int)
	go func() {
		// Another process: a store of its own, so no shared queue.
		other, n := wallet.NewApp(dynamo.New(client, table)), 0
		defer func() { streamed <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, _, err := other.TopUp(ctx, org, 1, "refund"); err != nil {
				t.Errorf("the other process's change: %v", err)
				return
			}
			n++
			time.Sleep(2 * time.Millisecond)
		}
	}()
	const changes = 50
	for i := range changes {
		if _, _, err := wallet.NewApp(s).TopUp(ctx, org, 1000, "top-up"); err != nil {
			t.Errorf("change %d while the other process streams changes: %v", i, err)
			break
		}
	}
	close(stop)
	n := <-streamed
	t.Logf("%d commits for %d changes, %d by the other", calls.Load(), changes, n)
	if n == 0 {
		t.Fatal("the other process made no change: nothing raced")
	}
	check, err := wallet.NewApp(s).VerifyLedger(ctx, org)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1_000_000 + changes*1000 + n); check.Balance != want || !check.OK {
		t.Errorf("ledger check %+v; want balance %d, the ledger summing to it", check, want)
	}
}
