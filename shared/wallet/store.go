package wallet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Store is what the wallet's use cases need of storage: loads, and the
// commit of a plan. shared/dynamo's Store implements it; it decides
// nothing, and reports what it found as the outcomes below.
type Store interface {
	// Now is the store's clock and NewID an id from it. A ledger entry
	// holds its transaction's change record, whose id must sort as the
	// time the transaction is built: a plan takes both anew on every
	// attempt.
	Now() time.Time
	NewID() string
	// Hold waits until no other change of orgID's wallet runs in this
	// process, or ctx ends, and holds the wallet for the caller until it
	// calls release (see Hold).
	Hold(ctx context.Context, orgID string) (h *Hold, release func(), err error)
	// Wallet reads orgID's wallet, strongly consistent; ErrNoWallet when
	// there is none.
	Wallet(ctx context.Context, orgID string) (Wallet, error)
	// CommitChange writes p in one transaction: the wallet moves from
	// p.Before to p.After (conditioned on holding p.Before), p.Entry is
	// written holding p's change message, and p.Request's record when
	// there is one. It returns a *BalanceMoved (ErrBalanceMoved) when the
	// wallet held another balance, a *RequestApplied (ErrRequestApplied)
	// when p.Request's id was applied first, ErrContended when the
	// transaction met a conflict or throttling, ErrNoWallet when the
	// wallet is gone; nothing is written then. SERVICE_UNAVAILABLE means
	// the outcome is unknown.
	CommitChange(ctx context.Context, p Plan) error
	// TopUpRecord reads the record of an applied request id; found is
	// false when the id was never applied.
	TopUpRecord(ctx context.Context, orgID, requestID string) (rec TopUpRecord, found bool, err error)
	// Entry reads one ledger entry; found is false when there is none.
	Entry(ctx context.Context, orgID, entryID string) (e Entry, found bool, err error)
	// WalletStatementBefore reads the wallet, the organization's budget
	// and a page of the ledger older than the entry before ("": from the
	// newest), with the whole ledger's total; ErrNoWallet when there is
	// no wallet.
	WalletStatementBefore(ctx context.Context, orgID, before string, p gifting.PageRequest) (Statement, error)
	// LedgerPage reads up to n ledger entries older than the entry before
	// ("": from the newest), newest first and strongly consistent; fewer
	// than n only at the ledger's end.
	LedgerPage(ctx context.Context, orgID, before string, n int) ([]Entry, error)
}

// Hold is one change's turn at a wallet within this process (Store.Hold).
// Every commit is conditioned on the exact balance it was decided from, so
// concurrent changes of one wallet in one process would invalidate each
// other: each success makes every other attempt in flight fail and decide
// again, quadratic work for a burst. Queued instead, each change starts
// from the balance its predecessor left and commits at its first attempt.
// Changes from other processes still race through the condition; a stale
// balance costs one failed attempt, which reports the balance found.
type Hold struct {
	// Known reports that Balance is the latest balance a change of this
	// wallet in this process decided from or committed. It may miss a
	// change made elsewhere.
	Known   bool
	Balance int64
}

// Remember records balance as the latest known, for the next change in the
// queue.
func (h *Hold) Remember(balance int64) { h.Known, h.Balance = true, balance }

// Outcomes storage reports for the application layer to act on. None is
// shown to a user as it is.
var (
	// ErrBalanceMoved: the wallet no longer held the balance the plan was
	// decided from; another change committed first. The error is a
	// *BalanceMoved with the balance found, so deciding again needs no
	// read.
	ErrBalanceMoved = errors.New("the wallet's balance moved")
	// ErrRequestApplied: another run applied the top-up's request id
	// first. The error is a *RequestApplied with that run's record.
	ErrRequestApplied = errors.New("the request id was applied first")
	// ErrContended: the transaction met a conflict or throttling and
	// wrote nothing; the same plan, tried again later, may succeed.
	ErrContended = errors.New("the transaction was contended")
	// ErrNoWallet: the organization has no wallet.
	ErrNoWallet = errors.New("no wallet")
)

// BalanceMoved is ErrBalanceMoved with the balance the wallet held.
type BalanceMoved struct{ Balance int64 }

func (m *BalanceMoved) Error() string {
	return fmt.Sprintf("%v: it holds %d", ErrBalanceMoved, m.Balance)
}

func (m *BalanceMoved) Is(target error) bool { return target == ErrBalanceMoved }

// RequestApplied is ErrRequestApplied with the record of the run that
// applied the request id.
type RequestApplied struct{ Record TopUpRecord }

func (r *RequestApplied) Error() string {
	return fmt.Sprintf("%v (entry %s)", ErrRequestApplied, r.Record.EntryID)
}

func (r *RequestApplied) Is(target error) bool { return target == ErrRequestApplied }

// NoWallet is the error a user sees for ErrNoWallet: the organization is
// NOT_FOUND.
func NoWallet(orgID string) error { return gifting.NotFound("organization", orgID) }
