package dynamo_test

import (
	"context"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// TestConcurrentDebitsOfOneWallet: debits of one wallet in one process queue
// instead of invalidating each other, so each costs one transaction, and
// the wallet never goes below zero.
func TestConcurrentDebitsOfOneWallet(t *testing.T) {
	t.Parallel()
	db := &faultyDB{DB: testenv.Client(t)}
	s := dynamo.New(db, testenv.Table(t))
	ctx := context.Background()
	if _, _, err := access.NewApp(s).CreateOrg(ctx, access.NewOrg{OrgID: "acme", Name: "Acme", Credits: 300}); err != nil {
		t.Fatal(err)
	}
	db.arm(0, "")

	const n = 40 // 40 × 10 credits against 300: 30 pass, 10 are refused
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		ok, poor int
		balances = map[int64]bool{}
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, _, err := s.ChangeBalance(ctx, dynamo.BalanceChange{OrgID: "acme", Delta: -10,
				Entry: wallet.Entry{Type: wallet.Debit, Reason: "test"}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
				if balances[w.Balance] {
					t.Errorf("two debits report balance %d", w.Balance)
				}
				balances[w.Balance] = true
			case gifting.ErrorCode(err) == gifting.CodeInsufficientCredits:
				poor++
			default:
				t.Errorf("debit: %v", err)
			}
		}()
	}
	wg.Wait()
	if ok != 30 || poor != 10 {
		t.Fatalf("%d debits passed and %d were refused; want 30 and 10", ok, poor)
	}
	if db.calls != 30 {
		t.Errorf("%d transactions for 30 debits; want one each, no retries", db.calls)
	}
	assertWallet(t, s, "acme", 0, 31)
	testenv.AssertLedgerBalanced(t, s, "acme")
}

// TestStaleBalanceDoesNotRefuse: a balance read earlier (by the caller, or
// remembered from the previous change in this process) may miss a top-up
// made elsewhere; a debit it seems not to cover is checked against a fresh
// read before it is refused.
func TestStaleBalanceDoesNotRefuse(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	ctx := context.Background()
	if _, _, err := access.NewApp(s).CreateOrg(ctx, access.NewOrg{OrgID: "acme", Name: "Acme", Credits: 10}); err != nil {
		t.Fatal(err)
	}
	stale := int64(0)
	w, _, err := s.ChangeBalance(ctx, dynamo.BalanceChange{OrgID: "acme", Delta: -10, Balance: &stale,
		Entry: wallet.Entry{Type: wallet.Debit}})
	if err != nil || w.Balance != 0 {
		t.Fatalf("debit with a stale balance: %+v, %v; want balance 0", w, err)
	}
	_, _, err = s.ChangeBalance(ctx, dynamo.BalanceChange{OrgID: "acme", Delta: -10,
		Entry: wallet.Entry{Type: wallet.Debit}})
	if gifting.ErrorCode(err) != gifting.CodeInsufficientCredits {
		t.Fatalf("debit of an empty wallet: %v, want INSUFFICIENT_CREDITS", err)
	}
	assertWallet(t, s, "acme", 0, 2)
	testenv.AssertLedgerBalanced(t, s, "acme")
}
