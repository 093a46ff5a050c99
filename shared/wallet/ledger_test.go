package wallet_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/wallet"
)

// TestLedgerCheck: a ledger adds up when its top-ups and refunds less its
// debits are the balance; an entry that cannot be summed stops the check
// and is named.
func TestLedgerCheck(t *testing.T) {
	t.Parallel()
	entry := func(id string, typ wallet.EntryType, amount int64) wallet.Entry {
		return wallet.Entry{EntryID: id, Type: typ, Amount: amount}
	}
	sound := []wallet.Entry{entry("e1", wallet.TopUp, 100), entry("e2", wallet.Debit, 30), entry("e3", wallet.Refund, 5)}
	for _, tt := range []struct {
		name    string
		balance int64
		entries []wallet.Entry
		sum     int64
		summed  int
		ok      bool
		problem string
	}{
		{"no entries, nothing held", 0, nil, 0, 0, true, ""},
		{"balanced", 75, sound, 75, 3, true, ""},
		{"money without an entry", 80, sound, 75, 3, false, ""},
		{"a negative amount", 75, append(sound, entry("e4", wallet.Debit, -5)), 75, 3, false, "entry e4 has a negative amount -5"},
		{"an unknown type", 75, append(sound, entry("e4", "gift", 5)), 75, 3, false, `entry e4 has an unknown type "gift"`},
		{"out of the range of a balance", 75, append(sound, entry("e4", wallet.TopUp, wallet.MaxBalance)), 75, 3, false,
			"entry e4 (top_up of 1000000000000000) takes the sum out of the range of a balance"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := wallet.LedgerCheck{OrgID: "acme", Balance: tt.balance}
			for _, e := range tt.entries {
				if !c.Add(e) {
					break
				}
			}
			c = c.Result()
			if c.LedgerSum != tt.sum || c.Entries != tt.summed || c.OK != tt.ok || c.Problem != tt.problem {
				t.Errorf("check %+v; want sum %d of %d entries, ok %v, problem %q", c, tt.sum, tt.summed, tt.ok, tt.problem)
			}
		})
	}
}
