package wallet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/retry"
)

// Balances is what changing a wallet's balance needs of storage besides
// the commit: the clock and ids a plan takes anew on every attempt, the
// per-process queue of the wallet's changes, and the balance.
type Balances interface {
	Now() time.Time
	NewID() string
	Hold(ctx context.Context, orgID string) (h *Hold, release func(), err error)
	Wallet(ctx context.Context, orgID string) (Wallet, error)
}

// Commit commits a decided plan, with whatever else belongs in its
// transaction. It reports what it found as the outcomes of Store's
// CommitChange (*BalanceMoved, ErrContended, ErrNoWallet) or as the
// caller's own, which Apply hands back as they are.
type Commit func(ctx context.Context, p Plan) error

// Apply decides c on the balance of its wallet and commits each plan with
// commit, in the wallet's turn within this process (Balances.Hold). When
// another change moved the balance first (commit returns a *BalanceMoved)
// it decides again from the balance found; when the transaction was
// contended (ErrContended) it tries again after a pause. A debit refused
// on a balance remembered from the previous change in the queue is decided
// again on a balance read now, which a top-up made elsewhere may have
// raised. It is the loop of every use case that changes a balance: the
// wallet's own (App), and those that commit the change together with
// writes of their own (a launch's debit, its refund).
//
// It returns the committed plan. Errors: Decide's (INSUFFICIENT_CREDITS,
// VALIDATION_FAILED, INTERNAL), NOT_FOUND (no wallet), an error after
// retry.MaxAttempts, and any other error commit returns, as it is.
func Apply(ctx context.Context, s Balances, c Change, commit Commit) (Plan, error) {
	if err := c.Check(); err != nil {
		return Plan{}, err
	}
	hold, release, err := s.Hold(ctx, c.OrgID)
	if err != nil {
		return Plan{}, err
	}
	defer release()
	balance, fresh := hold.Balance, false
	if !hold.Known {
		if balance, err = balanceNow(ctx, s, c.OrgID); err != nil {
			return Plan{}, err
		}
		fresh = true
	}
	for attempt := 1; ; attempt++ {
		hold.Remember(balance)
		p, err := Decide(balance, c, s.NewID(), s.Now())
		if Short(err) && !fresh {
			// The balance the previous change left may miss a top-up
			// made elsewhere: refuse only on a balance read now.
			if balance, err = balanceNow(ctx, s, c.OrgID); err != nil {
				return Plan{}, err
			}
			fresh = true
			hold.Remember(balance)
			p, err = Decide(balance, c, s.NewID(), s.Now())
		}
		if err != nil {
			return Plan{}, err
		}
		err = commit(ctx, p)
		var moved *BalanceMoved
		switch {
		case err == nil:
			hold.Remember(p.After)
			return p, nil
		case errors.Is(err, ErrNoWallet):
			return Plan{}, NoWallet(c.OrgID)
		case !errors.Is(err, ErrBalanceMoved) && !errors.Is(err, ErrContended):
			return Plan{}, err
		case attempt >= retry.MaxAttempts:
			return Plan{}, gifting.Unavailable(fmt.Errorf("change balance: gave up after %d attempts: %w", attempt, err))
		case errors.As(err, &moved):
			// Decide again from the balance found, at once: a move is
			// another change's success, not contention. A pause here
			// would only let a steady stream of changes from another
			// process (a campaign's refunds, one by one) move the
			// balance again, and this change would then commit on a
			// balance stale by the pause every time.
			balance, fresh = moved.Balance, true
			continue
		default:
			err = retry.Pause(ctx, attempt)
		}
		if err != nil {
			return Plan{}, err
		}
	}
}

// balanceNow reads the wallet's balance now; NOT_FOUND when there is none.
func balanceNow(ctx context.Context, s Balances, orgID string) (int64, error) {
	w, err := s.Wallet(ctx, orgID)
	if errors.Is(err, ErrNoWallet) {
		return 0, NoWallet(orgID)
	}
	return w.Balance, err
}
