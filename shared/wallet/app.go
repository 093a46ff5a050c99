package wallet

import (
	"context"
	"errors"
	"fmt"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/retry"
)

// App is the wallet's application layer: the use cases of the API and the
// operator CLI. Each loads what it needs through the Store, decides with
// the pure functions of this package, and hands the plan to the Store to
// commit in one transaction.
type App struct {
	store Store
}

// NewApp returns the wallet's use cases over store.
func NewApp(store Store) *App { return &App{store: store} }

// Wallet returns orgID's wallet. Errors: NOT_FOUND (no such organization).
func (a *App) Wallet(ctx context.Context, orgID string) (Wallet, error) {
	w, err := a.store.Wallet(ctx, orgID)
	if errors.Is(err, ErrNoWallet) {
		return Wallet{}, NoWallet(orgID)
	}
	return w, err
}

// Statement returns orgID's wallet with a page of its ledger, newest first,
// older than the entry before ("": from the newest): a page that follows a
// previous page's Next stays where it was however many entries were
// written since. Errors: NOT_FOUND (no such organization).
func (a *App) Statement(ctx context.Context, orgID, before string, p gifting.PageRequest) (Statement, error) {
	st, err := a.store.WalletStatementBefore(ctx, orgID, before, p)
	if errors.Is(err, ErrNoWallet) {
		return Statement{}, NoWallet(orgID)
	}
	return st, err
}

// TopUp adds credits to orgID's wallet, with a ledger entry, and returns
// the wallet and the entry. Errors: VALIDATION_FAILED naming "credits"
// (fewer than 1 or more than MaxTopUp, or more than the wallet can still
// hold), NOT_FOUND (no such organization), SERVICE_UNAVAILABLE (the outcome
// is unknown: TopUpOnce repeats a top-up safely).
func (a *App) TopUp(ctx context.Context, orgID string, credits int64, reason string) (Wallet, Entry, error) {
	if err := CheckTopUp(credits); err != nil {
		return Wallet{}, Entry{}, err
	}
	p, err := a.change(ctx, Change{OrgID: orgID, Type: TopUp, Delta: credits, Reason: reason}, nil)
	if err != nil {
		return Wallet{}, Entry{}, err
	}
	return a.after(ctx, p)
}

// TopUpOnce adds r.Credits to the wallet of r.OrgID, with a ledger entry,
// at most once per r.RequestID: the wallet update, the ledger entry and a
// record of the request id are one transaction. A repeat of the same
// request (same credits and reason) writes nothing and returns the first
// run's ledger entry with Replayed set. Errors: IDEMPOTENCY_KEY_REUSED (a
// repeat with other credits or another reason), VALIDATION_FAILED (bad
// credits or request id), NOT_FOUND (no such organization),
// SERVICE_UNAVAILABLE (the outcome is unknown: run the same request again).
func (a *App) TopUpOnce(ctx context.Context, r TopUpRequest) (TopUpResult, error) {
	if err := CheckRequestID(r.RequestID); err != nil {
		return TopUpResult{}, err
	}
	// A first read answers a plain re-run, even one the wallet could no
	// longer take (a top-up that filled it to the most it holds); the
	// record's condition in the commit settles a concurrent one.
	rec, found, err := a.store.TopUpRecord(ctx, r.OrgID, r.RequestID)
	if err != nil {
		return TopUpResult{}, err
	}
	if found {
		return a.replay(ctx, r, rec)
	}
	if err := CheckTopUp(r.Credits); err != nil {
		return TopUpResult{}, err
	}
	p, err := a.change(ctx, r.Change(), &r)
	var applied *RequestApplied
	if errors.As(err, &applied) {
		return a.replay(ctx, r, applied.Record)
	}
	if err != nil {
		return TopUpResult{}, err
	}
	w, e, err := a.after(ctx, p)
	if err != nil {
		return TopUpResult{}, err
	}
	return TopUpResult{RequestID: r.RequestID, Wallet: w, Entry: e}, nil
}

// replay answers a request whose id rec shows applied: the first run's
// ledger entry and the wallet now.
func (a *App) replay(ctx context.Context, r TopUpRequest, rec TopUpRecord) (TopUpResult, error) {
	if err := r.Replays(rec); err != nil {
		return TopUpResult{}, err
	}
	e, found, err := a.store.Entry(ctx, r.OrgID, rec.EntryID)
	if err != nil {
		return TopUpResult{}, err
	}
	if !found {
		return TopUpResult{}, fmt.Errorf("top-up %s of %s: ledger entry %s is missing", r.RequestID, r.OrgID, rec.EntryID)
	}
	w, err := a.Wallet(ctx, r.OrgID)
	if err != nil {
		return TopUpResult{}, err
	}
	return TopUpResult{RequestID: r.RequestID, Replayed: true, Wallet: w, Entry: e}, nil
}

// after is the wallet as committed plan p left it, with its currency read,
// and p's entry.
func (a *App) after(ctx context.Context, p Plan) (Wallet, Entry, error) {
	full, err := a.Wallet(ctx, p.OrgID)
	if err != nil {
		return Wallet{}, Entry{}, err
	}
	return Wallet{OrgID: p.OrgID, Balance: p.After, Currency: full.Currency, UpdatedAt: p.Entry.CreatedAt}, p.Entry, nil
}

// VerifyLedger sums every entry of orgID's ledger (strongly consistent
// reads) and compares the sum with the wallet's balance (LedgerCheck). Run
// it when no change of the wallet is under way: one made between the reads
// shows as a difference. Errors: NOT_FOUND (no such organization).
func (a *App) VerifyLedger(ctx context.Context, orgID string) (LedgerCheck, error) {
	const page = 1000
	w, err := a.Wallet(ctx, orgID)
	if err != nil {
		return LedgerCheck{}, err
	}
	check := LedgerCheck{OrgID: orgID, Balance: w.Balance}
	for before := ""; ; {
		entries, err := a.store.LedgerPage(ctx, orgID, before, page)
		if err != nil {
			return LedgerCheck{}, err
		}
		for _, e := range entries {
			if !check.Add(e) {
				return check.Result(), nil
			}
		}
		if len(entries) < page {
			return check.Result(), nil
		}
		before = entries[len(entries)-1].EntryID
	}
}

// change decides c on the wallet's balance and commits the plan (with r's
// record when r is not nil), through Apply: deciding again from the
// balance found whenever another change moved it first, and trying again
// after a pause when the transaction was contended. Errors: Decide's,
// NOT_FOUND, and *RequestApplied.
func (a *App) change(ctx context.Context, c Change, r *TopUpRequest) (Plan, error) {
	return Apply(ctx, a.store, c, func(ctx context.Context, p Plan) error {
		if r != nil {
			p = p.Applying(*r)
		}
		if err := a.store.CommitChange(ctx, p); err != nil {
			// The outcomes stay what they are under the context.
			return fmt.Errorf("change balance: %w", err)
		}
		return nil
	})
}

// ResetTo brings orgID's balance to target (0 to MaxTopUp) with one
// ledger entry: a top-up of what it lacks or a debit of what it holds
// over, nothing when it holds target. The entry is decided from the
// balance read and committed on the condition that the wallet still holds
// it; when another change moved it first, it is decided again from the
// balance found, so the wallet holds target when it returns (a sandbox's
// reset). Errors: NOT_FOUND, SERVICE_UNAVAILABLE.
func (a *App) ResetTo(ctx context.Context, orgID string, target int64, reason string) (Wallet, error) {
	for attempt := 1; ; attempt++ {
		w, err := a.Wallet(ctx, orgID)
		if err != nil || w.Balance == target {
			return w, err
		}
		c := Change{OrgID: orgID, Type: TopUp, Delta: target - w.Balance, Reason: reason}
		if c.Delta < 0 {
			c.Type = Debit
		}
		p, err := Decide(w.Balance, c, a.store.NewID(), a.store.Now())
		if err != nil {
			return Wallet{}, err
		}
		err = a.store.CommitChange(ctx, p)
		switch {
		case err == nil:
			w.Balance, w.UpdatedAt = p.After, p.Entry.CreatedAt
			return w, nil
		case errors.Is(err, ErrNoWallet):
			return Wallet{}, NoWallet(orgID)
		case (errors.Is(err, ErrBalanceMoved) || errors.Is(err, ErrContended)) && attempt < retry.MaxAttempts:
			continue
		}
		return Wallet{}, fmt.Errorf("reset balance: %w", err)
	}
}
