package dynamo

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// The wallet slice's storage: load and commit (shared/wallet decides). The
// items keep the attribute names they had when the API's types were stored
// as they were (docs/data-model.md); the tags name attributes, as the
// store's marshal reads them.

// The store implements the wallet's port.
var _ wallet.Store = (*Store)(nil)

// walletItem is the wallet item (WALLET under the organization).
type walletItem struct {
	OrgID     string    `json:"organizationId"`
	Balance   int64     `json:"balance"`
	Currency  string    `json:"currency"`
	UpdatedAt time.Time `json:"updatedAt"`
	// Entries counts the ledger entries written with the wallet: every
	// change of the balance adds one in the same update, so the count
	// costs no transaction item of its own. The ledger's total is this
	// plus the COUNT#LEDGER counter that code before it kept, now frozen
	// (WalletStatementBefore).
	Entries int64 `json:"entries"`
	// Contacts counts the contacts created by balance changes
	// (add-recipient's new contacts): the change updates the wallet
	// anyway, so counting them there costs nothing, where a COUNT#CONTACT
	// update in the same transaction would cost two write units. The
	// organization's contacts total is COUNT#CONTACT plus this
	// (contactsTotal); deletes and imports, which do not touch the
	// wallet, keep counting on COUNT#CONTACT.
	Contacts int64 `json:"contacts,omitempty"`
	// LedgerIndexed is set when every ledger entry of the organization
	// has its Slim entry (ledgerLPK): from its creation, or once `admin
	// migrate`'s ledger step gave the entries written before them theirs.
	// Only then may a deep ledger page skip on the index.
	LedgerIndexed bool `json:"lidx,omitempty"`
}

// Attribute names of the wallet's counts, for updates.
const (
	walletEntries  = "entries"
	walletContacts = "contacts"
)

func (w walletItem) wallet() wallet.Wallet {
	return wallet.Wallet{OrgID: w.OrgID, Balance: w.Balance, Currency: w.Currency, UpdatedAt: w.UpdatedAt}
}

// ledgerItem is a ledger entry (LEDGER#<entryId> under the organization).
// The entry of a balance change also holds its transaction's change
// record (ledgerPut).
type ledgerItem struct {
	EntryID      string    `json:"entryId"`
	Type         string    `json:"type"`
	Amount       int64     `json:"amount"`
	BalanceAfter int64     `json:"balanceAfter"`
	CampaignID   string    `json:"campaignId,omitempty"`
	RecipientID  string    `json:"recipientId,omitempty"`
	Reason       string    `json:"reason,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
}

func ledgerItemOf(e wallet.Entry) ledgerItem {
	return ledgerItem{EntryID: e.EntryID, Type: string(e.Type), Amount: e.Amount, BalanceAfter: e.BalanceAfter,
		CampaignID: e.CampaignID, RecipientID: e.RecipientID, Reason: e.Reason, CreatedAt: e.CreatedAt}
}

func (e ledgerItem) entry() wallet.Entry {
	return wallet.Entry{EntryID: e.EntryID, Type: wallet.EntryType(e.Type), Amount: e.Amount, BalanceAfter: e.BalanceAfter,
		CampaignID: e.CampaignID, RecipientID: e.RecipientID, Reason: e.Reason, CreatedAt: e.CreatedAt}
}

// Wallet reads the wallet of org, or wallet.ErrNoWallet.
func (s *Store) Wallet(ctx context.Context, orgID string) (wallet.Wallet, error) {
	var w walletItem
	found, err := s.get(ctx, orgPK(orgID), walletSK, &w)
	if err == nil && !found {
		err = wallet.ErrNoWallet
	}
	return w.wallet(), err
}

// Hold waits for org's wallet in this process (walletLocks).
func (s *Store) Hold(ctx context.Context, orgID string) (*wallet.Hold, func(), error) {
	l, err := s.wallets.acquire(ctx, orgID)
	if err != nil {
		return nil, nil, err
	}
	return &l.hold, func() { s.wallets.release(orgID, l) }, nil
}

// ledgerPut is the transaction item that writes a ledger entry.
//
// With msgs, the entry is also the change record of its transaction
// (changeAttrs), with the entry's id: a balance change's messages need no
// item of their own, which in a transaction would cost two write units.
func (s *Store) ledgerPut(orgID string, e wallet.Entry, msgs ...gifting.Change) (types.TransactWriteItem, error) {
	it, err := withKey(ledgerItemOf(e), map[string]string{"PK": orgPK(orgID), "SK": ledgerSK(e.EntryID),
		"LPK": ledgerLPK(orgID), "LSK": ledgerSK(e.EntryID)})
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

// walletHeader is the number of transaction items a plan's commit puts
// before the caller's: the wallet update and the ledger entry, which is
// also the change record.
const walletHeader = 2

// planWrites are what a balance change commits beside its plan: the
// caller's items and the change messages they make, the contacts they
// create, and what a cancellation caused by one of them means (reasons
// aligned with items; nil when not understood).
type planWrites struct {
	items    []types.TransactWriteItem
	changes  []gifting.Change
	contacts int64
	// recipients counts the recipients the items create, for the usage
	// of the month (usageAdd).
	recipients int64
	// events are the recipient events (campaign.MoveEvents) the items
	// count, for the month's report, added to the same usage item.
	events    map[string]int64
	cancelled func(reasons []types.CancellationReason) error
}

// CommitChange commits p (wallet.Store): with p.Request, the record of the
// request id is written too, on the condition that none exists.
func (s *Store) CommitChange(ctx context.Context, p wallet.Plan) error {
	var w planWrites
	if p.Request != nil {
		put, err := s.topUpRecordPut(p.OrgID, *p.Request)
		if err != nil {
			return err
		}
		var tx txn
		tx.add(condTopUp, put)
		w.items = tx.items
		w.cancelled = func(reasons []types.CancellationReason) error { return topUpApplied(&tx, reasons) }
	}
	return s.commitPlan(ctx, p, w)
}

// commitPlan writes p and w in one transaction: the wallet update
// conditioned on p.Before (counting one more ledger entry and w's
// contacts), the ledger entry holding the change record of w's messages
// and p's, then w's items, then the organization's usage of the month
// counting the entry and w's recipients (last, so the positions of w's
// items in a cancellation stay as they were). A failed condition of the
// wallet is wallet.ErrBalanceMoved with the balance DynamoDB reports back (or
// wallet.ErrNoWallet), a conflict or throttling wallet.ErrContended, a
// cancellation caused by w's items what w.cancelled maps it to.
func (s *Store) commitPlan(ctx context.Context, p wallet.Plan, w planWrites) error {
	ledger, err := s.ledgerPut(p.OrgID, p.Entry, append(slices.Clip(w.changes), p.Message())...)
	if err != nil {
		return err
	}
	update := &types.Update{
		TableName:           &s.table,
		Key:                 key(orgPK(p.OrgID), walletSK),
		UpdateExpression:    aws.String("SET balance = :after, updatedAt = :now ADD " + walletEntries + " :one"),
		ConditionExpression: aws.String("balance = :before"),
		ExpressionAttributeValues: item{
			":after":  num(p.After),
			":before": num(p.Before),
			":now":    str(p.Entry.CreatedAt.Format("2006-01-02T15:04:05.000Z07:00")),
			":one":    num(1),
		},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}
	if w.contacts != 0 {
		update.UpdateExpression = aws.String(*update.UpdateExpression + ", " + walletContacts + " :contacts")
		update.ExpressionAttributeValues[":contacts"] = num(w.contacts)
	}
	// The entry's id names this attempt: a resend of it is the same
	// transaction (transact), one decided again has a new entry.
	items := append([]types.TransactWriteItem{{Update: update}, ledger}, w.items...)
	items = append(items, s.usageAdd(p.OrgID, p.Entry.CreatedAt, addCounts(entryUsage(p.Entry, w.recipients), w.events)))
	err = s.transact(ctx, p.Entry.EntryID, items)
	if err == nil {
		return nil
	}
	reasons := cancellationReasons(err)
	switch {
	case reasonCode(reasons, 0) == "ConditionalCheckFailed":
		return walletMoved(p.OrgID, reasons[0].Item)
	case retryable(err):
		return fmt.Errorf("%w: %w", wallet.ErrContended, err)
	case reasons != nil && w.cancelled != nil:
		if mapped := w.cancelled(reasons[walletHeader:]); mapped != nil {
			return mapped
		}
	}
	return fmt.Errorf("change balance: %w", err)
}

// walletMoved is the outcome of a wallet update whose condition failed,
// from the wallet as DynamoDB found it (nil: there was none).
func walletMoved(orgID string, old item) error {
	if old == nil {
		return wallet.ErrNoWallet
	}
	n, ok := old["balance"].(*types.AttributeValueMemberN)
	if !ok {
		return fmt.Errorf("wallet of %s has no numeric balance", orgID)
	}
	balance, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return fmt.Errorf("wallet balance: %w", err)
	}
	return &wallet.BalanceMoved{Balance: balance}
}
