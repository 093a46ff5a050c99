package testenv

import (
	"context"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/wallet"
)

// AssertLedgerBalanced fails the test unless orgID's ledger sums to its
// wallet's balance (wallet.App.VerifyLedger, the check of `admin verify-ledger`)
// and the balance is not negative. Money tests end with it; Org registers
// it for every organization it creates.
//
// A difference is checked again for up to two seconds before it fails the
// test: work still finishing in the background (a launch job) may commit
// between VerifyLedger's reads, while money made or lost for good stays.
func AssertLedgerBalanced(t testing.TB, s *dynamo.Store, orgID string) {
	t.Helper()
	var check wallet.LedgerCheck
	for deadline := time.Now().Add(2 * time.Second); ; {
		var err error
		check, err = wallet.NewApp(s).VerifyLedger(context.Background(), orgID)
		if err != nil {
			t.Errorf("verify ledger of %s: %v", orgID, err)
			return
		}
		if (check.OK && check.Balance >= 0) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !check.OK || check.Balance < 0 {
		t.Errorf("ledger of %s does not add up: %+v", orgID, check)
	}
}
