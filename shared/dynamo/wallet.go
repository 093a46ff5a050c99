package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// Wallet returns the wallet of org, or NOT_FOUND.
func (s *Store) Wallet(ctx context.Context, orgID string) (gifting.Wallet, error) {
	return getOrNotFound[gifting.Wallet](ctx, s, orgPK(orgID), walletSK, gifting.NotFound("organization", orgID))
}

// ledgerPut is the transaction item that writes a ledger entry.
//
// With msgs, the entry is also the change record of its transaction
// (changeAttrs), with the entry's id: a balance change's messages need no
// item of their own, which in a transaction would cost two write units.
func (s *Store) ledgerPut(orgID string, e gifting.LedgerEntry, msgs ...gifting.Change) (types.TransactWriteItem, error) {
	it, err := withKey(e, map[string]string{"PK": orgPK(orgID), "SK": ledgerSK(e.EntryID)})
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	if len(msgs) > 0 {
		rec, err := changeAttrs(orgID, e.EntryID, e.CreatedAt, msgs)
		if err != nil {
			return types.TransactWriteItem{}, err
		}
		maps.Copy(it, rec)
	}
	return types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it}}, nil
}

// BalanceChange is one change of a wallet together with the writes that
// must happen if and only if the change happens.
type BalanceChange struct {
	OrgID string
	// Delta is added to the balance: negative for a debit.
	Delta int64
	// Entry describes the change in the ledger. Type, CampaignID,
	// RecipientID and Reason are the caller's; the rest is filled in. Its
	// EntryID is taken anew, from the store's clock, on every attempt: the
	// entry holds the transaction's change record, which must not commit
	// with an id older than FeedLag.
	Entry gifting.LedgerEntry
	// Named, when not nil, is given the entry's id of each attempt before
	// Items is called: for a caller whose Items name the entry (a top-up's
	// record).
	Named func(entryID string)
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
	// Contacts is the number of contacts Items creates. They are counted on
	// the wallet (walletContacts), in the update the change makes anyway,
	// rather than by a COUNT#CONTACT update that in a transaction would
	// cost two write units.
	Contacts int64
	// Cancelled maps a cancellation caused by one of Items to a domain
	// error. reasons are aligned with what Items returned. Returning nil
	// means the cancellation is not understood and is reported as internal.
	Cancelled func(reasons []types.CancellationReason) error
}

// walletHeader is the number of transaction items ChangeBalance puts before
// the caller's: the wallet update and the ledger entry, which is also the
// change record.
const walletHeader = 2

// walletEntries is the wallet item's attribute that counts the ledger
// entries written with it: every change of the balance adds one in the
// same update, so the count costs no transaction item of its own. The
// ledger's total is this plus the COUNT#LEDGER counter that code before it
// kept, now frozen (WalletStatement).
const walletEntries = "entries"

// walletContacts is the wallet item's attribute that counts the contacts
// created by balance changes (add-recipient's new contacts): the change
// updates the wallet anyway, so counting them there costs nothing, where
// a COUNT#CONTACT update in the same transaction would cost two write
// units. The organization's contacts total is COUNT#CONTACT plus this
// (contactsTotal); deletes and imports, which do not touch the wallet,
// keep counting on COUNT#CONTACT.
const walletContacts = "contacts"

// walletCount is the wallet item's counts: of ledger entries and of
// contacts created with a balance change.
type walletCount struct {
	Entries  int64 `json:"entries"`
	Contacts int64 `json:"contacts"`
}

// walletChangeTypes are the change messages of the ledger's entry types.
var walletChangeTypes = map[string]string{
	gifting.LedgerDebit: gifting.ChangeWalletDebited,
	LedgerRefund:        gifting.ChangeWalletRefunded,
	gifting.LedgerTopUp: gifting.ChangeWalletToppedUp,
}

// ChangeBalance applies c in one transaction: the wallet moves from its
// current balance to balance+Delta (and counts one more ledger entry), a
// ledger entry records it, and the caller's items are written, all or
// nothing. The balance never goes below
// zero: a debit larger than the balance returns INSUFFICIENT_CREDITS and
// writes nothing. Nor above gifting.MaxBalance: a top-up that would take it
// there is a VALIDATION_FAILED naming "credits".
//
// Whatever the caller computed, a change whose sign or size does not fit
// its ledger type (BalanceChange.check) is refused before anything is read
// or written, with an INTERNAL error: it is a programming error.
//
// The wallet update is conditioned on the balance it was computed from, so
// the balance after (reported back to the caller and in the ledger) is
// exactly what this transaction wrote, whatever runs concurrently. When
// another change got there first, the transaction is retried from the
// balance DynamoDB reports back; conflicts and throttling are retried with
// jittered backoff.
func (s *Store) ChangeBalance(ctx context.Context, c BalanceChange) (gifting.Wallet, gifting.LedgerEntry, error) {
	if err := c.check(); err != nil {
		return gifting.Wallet{}, gifting.LedgerEntry{}, err
	}
	lock, err := s.wallets.acquire(ctx, c.OrgID)
	if err != nil {
		return gifting.Wallet{}, gifting.LedgerEntry{}, err
	}
	defer s.wallets.release(c.OrgID, lock)
	return s.changeBalance(ctx, c, lock)
}

// changeBalance is ChangeBalance with the wallet's lock held.
func (s *Store) changeBalance(ctx context.Context, c BalanceChange, lock *walletLock) (gifting.Wallet, gifting.LedgerEntry, error) {
	var balance int64
	fresh := false // read from the table in this call
	switch {
	case lock.known:
		// What the previous change in this process wrote: newer than a
		// read the caller made before waiting for the lock.
		balance = lock.balance
	case c.Balance != nil:
		balance = *c.Balance
	default:
		w, err := s.Wallet(ctx, c.OrgID)
		if err != nil {
			return gifting.Wallet{}, gifting.LedgerEntry{}, err
		}
		balance, fresh = w.Balance, true
	}
	for attempt := 1; ; attempt++ {
		if err := balanceInRange(c.OrgID, balance); err != nil {
			return gifting.Wallet{}, gifting.LedgerEntry{}, err
		}
		after := balance + c.Delta // both within ±MaxBalance (check): no overflow
		lock.known, lock.balance = true, balance
		if after < 0 && !fresh {
			// A remembered or earlier-read balance may miss a top-up made
			// elsewhere: refuse only on a balance read now.
			w, err := s.Wallet(ctx, c.OrgID)
			if err != nil {
				return gifting.Wallet{}, gifting.LedgerEntry{}, err
			}
			if err := balanceInRange(c.OrgID, w.Balance); err != nil {
				return gifting.Wallet{}, gifting.LedgerEntry{}, err
			}
			balance, fresh = w.Balance, true
			after = balance + c.Delta
			lock.balance = balance
		}
		if after < 0 {
			return gifting.Wallet{}, gifting.LedgerEntry{}, gifting.Errorf(gifting.CodeInsufficientCredits,
				"this needs %d credits but the wallet holds %d", -c.Delta, balance)
		}
		if after > gifting.MaxBalance {
			return gifting.Wallet{}, gifting.LedgerEntry{}, tooRich(c, balance)
		}
		now := s.Now()
		entry := c.Entry
		entry.CreatedAt, entry.BalanceAfter = now, after
		entry.EntryID = s.NewID()
		if c.Named != nil {
			c.Named(entry.EntryID)
		}
		entry.Amount = c.Delta
		if c.Delta < 0 {
			entry.Amount = -c.Delta
		}
		ledger, err := s.ledgerPut(c.OrgID, entry, append(slices.Clip(c.Changes),
			gifting.NewChange(walletChangeTypes[entry.Type], gifting.WalletChange{Balance: after, Entry: entry}))...)
		if err != nil {
			return gifting.Wallet{}, gifting.LedgerEntry{}, err
		}
		update := &types.Update{
			TableName:           &s.table,
			Key:                 key(orgPK(c.OrgID), walletSK),
			UpdateExpression:    aws.String("SET balance = :after, updatedAt = :now ADD " + walletEntries + " :one"),
			ConditionExpression: aws.String("balance = :before"),
			ExpressionAttributeValues: item{
				":after":  num(after),
				":before": num(balance),
				":now":    str(now.Format("2006-01-02T15:04:05.000Z07:00")),
				":one":    num(1),
			},
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		}
		if c.Contacts != 0 {
			update.UpdateExpression = aws.String(*update.UpdateExpression + ", " + walletContacts + " :contacts")
			update.ExpressionAttributeValues[":contacts"] = num(c.Contacts)
		}
		items := []types.TransactWriteItem{{Update: update}, ledger}
		if c.Items != nil {
			more, err := c.Items(after)
			if err != nil {
				return gifting.Wallet{}, gifting.LedgerEntry{}, err
			}
			items = append(items, more...)
		}
		// The entry's id names this attempt: a resend of it is the same
		// transaction (transact), a rebuilt one has a new entry.
		err = s.transact(ctx, entry.EntryID, items)
		if err == nil {
			lock.balance = after
			w := gifting.Wallet{OrgID: c.OrgID, Balance: after, UpdatedAt: now}
			return w, entry, nil
		}
		if attempt >= maxAttempts {
			return gifting.Wallet{}, gifting.LedgerEntry{}, fmt.Errorf("change balance: gave up after %d attempts: %w", attempt, err)
		}
		reasons := cancellationReasons(err)
		switch {
		case reasonCode(reasons, 0) == "ConditionalCheckFailed":
			// Another change moved the balance: start again from the
			// balance DynamoDB reports, without another read.
			old := reasons[0].Item
			if old == nil {
				return gifting.Wallet{}, gifting.LedgerEntry{}, gifting.NotFound("organization", c.OrgID)
			}
			n, ok := old["balance"].(*types.AttributeValueMemberN)
			if !ok {
				return gifting.Wallet{}, gifting.LedgerEntry{}, fmt.Errorf("wallet of %s has no numeric balance", c.OrgID)
			}
			if balance, err = strconv.ParseInt(n.Value, 10, 64); err != nil {
				return gifting.Wallet{}, gifting.LedgerEntry{}, fmt.Errorf("wallet balance: %w", err)
			}
			fresh = true
			if attempt > 2 {
				if err := sleep(ctx, backoff(attempt-2)); err != nil {
					return gifting.Wallet{}, gifting.LedgerEntry{}, err
				}
			}
		case retryable(err):
			if err := sleep(ctx, backoff(attempt)); err != nil {
				return gifting.Wallet{}, gifting.LedgerEntry{}, err
			}
		case reasons != nil && c.Cancelled != nil:
			if mapped := c.Cancelled(reasons[walletHeader:]); mapped != nil {
				return gifting.Wallet{}, gifting.LedgerEntry{}, mapped
			}
			return gifting.Wallet{}, gifting.LedgerEntry{}, fmt.Errorf("change balance: %w", err)
		default:
			return gifting.Wallet{}, gifting.LedgerEntry{}, fmt.Errorf("change balance: %w", err)
		}
	}
}

// check refuses a change whose sign or size does not fit its ledger type:
// a top-up adds 1 to gifting.MaxTopUp credits, a refund gives back 1 to
// gifting.MaxBalance, a debit takes 0 to gifting.MaxBalance (0 for a
// recipient of a free campaign of the organization's own gifts). The error
// is INTERNAL: callers validate amounts first, so reaching it is a bug.
func (c BalanceChange) check() error {
	var ok bool
	switch c.Entry.Type {
	case gifting.LedgerTopUp:
		ok = c.Delta > 0 && c.Delta <= gifting.MaxTopUp
	case LedgerRefund:
		ok = c.Delta > 0 && c.Delta <= gifting.MaxBalance
	case gifting.LedgerDebit:
		ok = c.Delta <= 0 && c.Delta >= -gifting.MaxBalance
	}
	if !ok {
		return gifting.Errorf(gifting.CodeInternal, "refused a %q change of %d credits to the wallet of %s: wrong sign or size",
			c.Entry.Type, c.Delta, c.OrgID)
	}
	return nil
}

// balanceInRange refuses to change a balance outside [0,
// gifting.MaxBalance], which no change can have written: the wallet item
// was damaged, and computing from it could wrap around.
func balanceInRange(orgID string, balance int64) error {
	if balance < 0 || balance > gifting.MaxBalance {
		return gifting.Errorf(gifting.CodeInternal, "the wallet of %s holds %d credits, outside 0 to %d: refusing to change it",
			orgID, balance, int64(gifting.MaxBalance))
	}
	return nil
}

// tooRich is the error of a change that would take the balance above
// gifting.MaxBalance: the operator's mistake for a top-up, a bug otherwise.
func tooRich(c BalanceChange, balance int64) error {
	if c.Entry.Type == gifting.LedgerTopUp {
		return &gifting.Error{Code: gifting.CodeValidation,
			Message: fmt.Sprintf("a wallet holds at most %d credits; this one holds %d", int64(gifting.MaxBalance), balance),
			Details: map[string]string{"credits": fmt.Sprintf("must be at most %d here", gifting.MaxBalance-balance)}}
	}
	return gifting.Errorf(gifting.CodeInternal, "refused a %q change of %d credits to the wallet of %s: the balance %d would pass the most a wallet holds",
		c.Entry.Type, c.Delta, c.OrgID, balance)
}

// TopUp adds credits to org's wallet, with a ledger entry. Credits must be
// from 1 to gifting.MaxTopUp, and the balance stays at most
// gifting.MaxBalance (VALIDATION_FAILED naming "credits").
func (s *Store) TopUp(ctx context.Context, orgID string, credits int64, reason string) (gifting.Wallet, gifting.LedgerEntry, error) {
	return s.topUp(ctx, orgID, credits, BalanceChange{}, reason)
}

// topUp is TopUp with c's entry id and items (TopUpOnce's record of its
// request id) written in the same transaction.
func (s *Store) topUp(ctx context.Context, orgID string, credits int64, c BalanceChange, reason string) (gifting.Wallet, gifting.LedgerEntry, error) {
	if credits <= 0 || credits > gifting.MaxTopUp {
		return gifting.Wallet{}, gifting.LedgerEntry{}, &gifting.Error{Code: gifting.CodeValidation,
			Message: fmt.Sprintf("credits must be a whole number from 1 to %d", gifting.MaxTopUp),
			Details: map[string]string{"credits": fmt.Sprintf("must be from 1 to %d", gifting.MaxTopUp)}}
	}
	c.OrgID, c.Delta = orgID, credits
	c.Entry.Type, c.Entry.Reason = gifting.LedgerTopUp, reason
	w, e, err := s.ChangeBalance(ctx, c)
	if err != nil {
		return w, e, err
	}
	full, err := s.Wallet(ctx, orgID)
	if err != nil {
		return w, e, err
	}
	w.Currency = full.Currency
	return w, e, nil
}
