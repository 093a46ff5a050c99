package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// The bridge: the money paths that have no slice of their own yet
// (add-recipient, claim, expiry) change the balance together with their
// own writes through ChangeBalance. It runs the wallet's decision
// (wallet.Decide) and commits through the same commitPlan as the wallet's
// use cases. A path that moves into its slice decides with wallet.Apply in
// its application layer and commits its plan with its own writes (the
// campaign slice's launch and its finish: CommitLaunch, CommitFinish);
// when the last has moved, this file goes.

// BalanceChange is one change of a wallet together with the writes that
// must happen if and only if the change happens.
type BalanceChange struct {
	OrgID string
	// Delta is added to the balance: negative for a debit.
	Delta int64
	// Entry describes the change in the ledger: Type, CampaignID,
	// RecipientID and Reason are the caller's; the rest is decided
	// (wallet.Decide) on every attempt, the id from the store's clock: the
	// entry holds the transaction's change record, which must not commit
	// with an id older than FeedLag.
	Entry wallet.Entry
	// Balance, when not nil, is a balance the caller has just read
	// (strongly consistent); it saves the first read of the wallet.
	Balance *int64
	// Items returns the other writes of the transaction, given the balance
	// after the change. It is called again on every attempt.
	Items func(balanceAfter int64) ([]types.TransactWriteItem, error)
	// Changes are the change messages of the caller's writes (a recipient
	// created, a campaign launched). They are recorded together with the
	// wallet's own message (wallet.debited, refunded or topped_up) as one
	// change record of the transaction: the ledger entry (ledgerPut).
	Changes []gifting.Change
	// Contacts is the number of contacts Items creates, counted on the
	// wallet (walletItem.Contacts).
	Contacts int64
	// Cancelled maps a cancellation caused by one of Items to a domain
	// error. reasons are aligned with what Items returned. Returning nil
	// means the cancellation is not understood and is reported as internal.
	Cancelled func(reasons []types.CancellationReason) error
}

// ChangeBalance applies c in one transaction: the wallet moves from its
// current balance to balance+Delta (and counts one more ledger entry), a
// ledger entry records it, and the caller's items are written, all or
// nothing. What may change is wallet.Decide's: a debit larger than the
// balance is INSUFFICIENT_CREDITS, a change of the wrong sign or size
// INTERNAL (refused before anything is read), and nothing is written then.
//
// The commit is conditioned on the balance the change was decided from;
// when another change got there first, it is decided again from the
// balance DynamoDB reports back, and conflicts and throttling are tried
// again with jittered backoff: the loop of wallet.App, with the caller's
// items.
func (s *Store) ChangeBalance(ctx context.Context, c BalanceChange) (wallet.Wallet, wallet.Entry, error) {
	change := wallet.Change{OrgID: c.OrgID, Type: c.Entry.Type, Delta: c.Delta,
		CampaignID: c.Entry.CampaignID, RecipientID: c.Entry.RecipientID, Reason: c.Entry.Reason}
	if err := change.Check(); err != nil {
		return wallet.Wallet{}, wallet.Entry{}, err
	}
	hold, release, err := s.Hold(ctx, c.OrgID)
	if err != nil {
		return wallet.Wallet{}, wallet.Entry{}, err
	}
	defer release()
	p, err := s.changeBalance(ctx, c, change, hold)
	if err != nil {
		return wallet.Wallet{}, wallet.Entry{}, err
	}
	return wallet.Wallet{OrgID: c.OrgID, Balance: p.After, UpdatedAt: p.Entry.CreatedAt}, p.Entry, nil
}

// changeBalance is ChangeBalance with the wallet held.
func (s *Store) changeBalance(ctx context.Context, c BalanceChange, change wallet.Change, hold *wallet.Hold) (wallet.Plan, error) {
	balance, fresh := hold.Balance, false
	switch {
	case hold.Known:
		// What the previous change in this process left: newer than a
		// read the caller made before waiting for the wallet.
	case c.Balance != nil:
		balance = *c.Balance
	default:
		w, err := s.Wallet(ctx, c.OrgID)
		if err != nil {
			return wallet.Plan{}, noWallet(c.OrgID, err)
		}
		balance, fresh = w.Balance, true
	}
	for attempt := 1; ; attempt++ {
		hold.Remember(balance)
		p, err := wallet.Decide(balance, change, s.NewID(), s.Now())
		if wallet.Short(err) && !fresh {
			// A remembered or earlier-read balance may miss a top-up
			// made elsewhere: refuse only on a balance read now.
			w, rerr := s.Wallet(ctx, c.OrgID)
			if rerr != nil {
				return wallet.Plan{}, noWallet(c.OrgID, rerr)
			}
			balance, fresh = w.Balance, true
			hold.Remember(balance)
			p, err = wallet.Decide(balance, change, s.NewID(), s.Now())
		}
		if err != nil {
			return wallet.Plan{}, err
		}
		w := planWrites{changes: c.Changes, contacts: c.Contacts, cancelled: c.Cancelled}
		if c.Items != nil {
			if w.items, err = c.Items(p.After); err != nil {
				return wallet.Plan{}, err
			}
		}
		err = s.commitPlan(ctx, p, w)
		var moved *wallet.BalanceMoved
		switch {
		case err == nil:
			hold.Remember(p.After)
			return p, nil
		case !errors.Is(err, wallet.ErrBalanceMoved) && !errors.Is(err, wallet.ErrContended):
			return wallet.Plan{}, noWallet(c.OrgID, err)
		case attempt >= maxAttempts:
			return wallet.Plan{}, gifting.Unavailable(fmt.Errorf("change balance: gave up after %d attempts: %w", attempt, err))
		case errors.As(err, &moved):
			// At once, from the balance found, as wallet.Apply does.
			balance, fresh = moved.Balance, true
			continue
		default:
			err = sleep(ctx, backoff(attempt))
		}
		if err != nil {
			return wallet.Plan{}, err
		}
	}
}

// noWallet is err, with wallet.ErrNoWallet shown to the user as the
// wallet slice shows it.
func noWallet(orgID string, err error) error {
	if errors.Is(err, wallet.ErrNoWallet) {
		return wallet.NoWallet(orgID)
	}
	return err
}
