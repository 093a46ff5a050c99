// Package wallet is the wallet slice: an organization's credits, the ledger
// that accounts for every credit, and the rules of changing them.
//
// It holds the slice's domain types (no JSON or attribute tags: the API's
// and the webhook messages' shapes are shared/wire's and shared/httpapi's,
// the stored items shared/dynamo's), its pure decisions (Decide: a balance
// and a change in, a Plan or the domain error out), the port it needs of
// storage (Store) and its application layer (App: load → decide → commit,
// deciding again when another change moved the balance first). Storage
// implements Store and imports this package for its types, plans and
// outcomes, never App (TestStorageDecidesNothing keeps it so).
package wallet

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Bounds of a wallet. They are far above any real budget and far below
// where int64 arithmetic (or a JSON client's float64) loses exactness: a
// balance stays below 2^53, so every credit figure the API answers is exact
// in any JSON parser.
const (
	// MaxTopUp is the largest single top-up of a wallet.
	MaxTopUp = 1_000_000_000
	// MaxBalance is the most a wallet can hold, and so the largest debit
	// or refund there can be.
	MaxBalance = 1_000_000_000_000_000
)

// Wallet is an organization's credit balance. Credits are whole numbers, so
// money is exact.
type Wallet struct {
	OrgID     string
	Balance   int64
	Currency  string
	UpdatedAt time.Time
}

// EntryType is what a ledger entry records: credits added by an operator,
// taken for a recipient or a launch, or given back.
type EntryType string

// Ledger entry types.
const (
	TopUp  EntryType = "top_up"
	Debit  EntryType = "debit"
	Refund EntryType = "refund"
)

// Entry records one change of a wallet's balance; it is written in the same
// transaction as the change.
type Entry struct {
	EntryID string
	Type    EntryType
	// Amount is the credits moved, never negative: Type says which way.
	Amount       int64
	BalanceAfter int64
	CampaignID   string
	RecipientID  string
	Reason       string
	CreatedAt    time.Time
}

// Statement is a wallet with a page of its ledger, newest first.
type Statement struct {
	Wallet Wallet
	// Budget is the organization's budget (currency and amount) from its
	// profile.
	Budget gifting.Budget
	// Entries is the page of ledger entries.
	Entries []Entry
	// Total is the number of ledger entries.
	Total int
	// Next is the entry id after which the next page starts, "" when the
	// page is the ledger's last.
	Next string
}

// changeTypes are the change messages of the entry types.
var changeTypes = map[EntryType]string{
	Debit:  gifting.ChangeWalletDebited,
	Refund: gifting.ChangeWalletRefunded,
	TopUp:  gifting.ChangeWalletToppedUp,
}
