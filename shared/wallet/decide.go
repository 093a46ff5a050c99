package wallet

import (
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Change is a change of one wallet's balance that a use case asks for.
type Change struct {
	OrgID string
	Type  EntryType
	// Delta is added to the balance: negative for a debit.
	Delta int64
	// CampaignID, RecipientID and Reason describe the change in its ledger
	// entry.
	CampaignID  string
	RecipientID string
	Reason      string
}

// Plan is a decided change, ready to commit in one transaction: the wallet
// moves from Before to After, conditioned on still holding Before, and
// Entry records it.
type Plan struct {
	OrgID string
	// Before is the balance the plan was decided from. The commit is
	// conditioned on it, so After is exactly what the commit writes,
	// whatever runs concurrently.
	Before int64
	After  int64
	// Entry is the ledger entry, filled in: its id, amount, balance after
	// and time.
	Entry Entry
	// Request, when not nil, marks an operator's request id applied in
	// the same transaction (App.TopUpOnce).
	Request *TopUpRecord
}

// Message is the change message of the plan (wallet.debited, refunded or
// topped_up), whose data is the entry: the balance after it and the entry
// itself go out as one message (shared/wire.WalletChange).
func (p Plan) Message() gifting.Change {
	return gifting.NewChange(changeTypes[p.Entry.Type], p.Entry)
}

// Check refuses a change whose sign or size does not fit its type: a
// top-up adds 1 to MaxTopUp credits, a refund gives back 1 to MaxBalance, a
// debit takes 0 to MaxBalance (0 for a recipient of a free campaign of the
// organization's own gifts). The error is INTERNAL: callers validate
// amounts first, so reaching it is a bug. It needs no balance, so it runs
// before anything is read.
func (c Change) Check() error {
	var ok bool
	switch c.Type {
	case TopUp:
		ok = c.Delta > 0 && c.Delta <= MaxTopUp
	case Refund:
		ok = c.Delta > 0 && c.Delta <= MaxBalance
	case Debit:
		ok = c.Delta <= 0 && c.Delta >= -MaxBalance
	}
	if !ok {
		return gifting.Errorf(gifting.CodeInternal, "refused a %q change of %d credits to the wallet of %s: wrong sign or size",
			c.Type, c.Delta, c.OrgID)
	}
	return nil
}

// Decide plans c on a wallet holding balance: the balance after it and its
// ledger entry, named id and dated now. The balance never goes below zero:
// a debit larger than the balance is INSUFFICIENT_CREDITS. Nor above
// MaxBalance: a top-up that would take it there is a VALIDATION_FAILED
// naming "credits", any other change an INTERNAL error. A change that fails
// Check, or a balance outside 0 to MaxBalance (which no change can have
// written: the wallet item was damaged, and computing from it could wrap
// around), is INTERNAL.
func Decide(balance int64, c Change, id string, now time.Time) (Plan, error) {
	if err := c.Check(); err != nil {
		return Plan{}, err
	}
	if balance < 0 || balance > MaxBalance {
		return Plan{}, gifting.Errorf(gifting.CodeInternal, "the wallet of %s holds %d credits, outside 0 to %d: refusing to change it",
			c.OrgID, balance, int64(MaxBalance))
	}
	after := balance + c.Delta // both within ±MaxBalance: no overflow
	switch {
	case after < 0:
		return Plan{}, gifting.Errorf(gifting.CodeInsufficientCredits,
			"this needs %d credits but the wallet holds %d", -c.Delta, balance)
	case after > MaxBalance && c.Type == TopUp:
		// The operator's mistake.
		return Plan{}, &gifting.Error{Code: gifting.CodeValidation,
			Message: fmt.Sprintf("a wallet holds at most %d credits; this one holds %d", int64(MaxBalance), balance),
			Details: map[string]string{"credits": fmt.Sprintf("must be at most %d here", MaxBalance-balance)}}
	case after > MaxBalance:
		return Plan{}, gifting.Errorf(gifting.CodeInternal,
			"refused a %q change of %d credits to the wallet of %s: the balance %d would pass the most a wallet holds",
			c.Type, c.Delta, c.OrgID, balance)
	}
	return Plan{OrgID: c.OrgID, Before: balance, After: after, Entry: Entry{
		EntryID: id, Type: c.Type, Amount: max(c.Delta, -c.Delta), BalanceAfter: after,
		CampaignID: c.CampaignID, RecipientID: c.RecipientID, Reason: c.Reason, CreatedAt: now,
	}}, nil
}

// Short reports whether err is Decide's refusal of a debit larger than the
// balance: worth deciding again from a balance read now when the one
// decided from was remembered or read earlier, since a top-up made
// elsewhere may have come in meanwhile.
func Short(err error) bool {
	return gifting.ErrorCode(err) == gifting.CodeInsufficientCredits
}

// CheckTopUp refuses credits an operator cannot add at once: fewer than 1
// or more than MaxTopUp (VALIDATION_FAILED naming "credits").
func CheckTopUp(credits int64) error {
	if credits <= 0 || credits > MaxTopUp {
		return &gifting.Error{Code: gifting.CodeValidation,
			Message: fmt.Sprintf("credits must be a whole number from 1 to %d", MaxTopUp),
			Details: map[string]string{"credits": fmt.Sprintf("must be from 1 to %d", MaxTopUp)}}
	}
	return nil
}
