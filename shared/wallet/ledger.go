package wallet

import "fmt"

// LedgerCheck is a wallet's balance beside the sum of its ledger
// (App.VerifyLedger): money that appeared or vanished without a ledger
// entry, or an entry whose amount is not what the wallet moved, makes OK
// false.
type LedgerCheck struct {
	OrgID   string
	Balance int64
	// LedgerSum is the top-ups and refunds minus the debits of every
	// ledger entry (up to the first broken one, see Problem).
	LedgerSum int64
	// Entries is the number of ledger entries summed.
	Entries int
	// OK is true when LedgerSum equals Balance and every entry is sound.
	OK bool
	// Problem names the first entry that cannot be summed (an unknown
	// type, a negative amount, a sum out of the range of a balance).
	Problem string
}

// Add sums e into the check, in any order. It returns false, with Problem
// set, when e cannot be summed: the check is then decided (not OK), and
// the rest of the ledger need not be read.
func (c *LedgerCheck) Add(e Entry) bool {
	amount := e.Amount
	switch {
	case amount < 0:
		c.Problem = fmt.Sprintf("entry %s has a negative amount %d", e.EntryID, amount)
		return false
	case e.Type == Debit:
		amount = -amount
	case e.Type != TopUp && e.Type != Refund:
		c.Problem = fmt.Sprintf("entry %s has an unknown type %q", e.EntryID, e.Type)
		return false
	}
	sum, ok := AddCredits(c.LedgerSum, amount)
	if !ok {
		c.Problem = fmt.Sprintf("entry %s (%s of %d) takes the sum out of the range of a balance", e.EntryID, e.Type, e.Amount)
		return false
	}
	c.LedgerSum = sum
	c.Entries++
	return true
}

// Result is the check once every entry was added, or Add refused one.
func (c LedgerCheck) Result() LedgerCheck {
	c.OK = c.Problem == "" && c.LedgerSum == c.Balance
	return c
}
