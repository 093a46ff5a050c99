package testenv

import (
	"context"
	"testing"

	"github.com/giftcampaign/service/shared/dynamo"
)

// AssertLedgerBalanced fails the test unless orgID's ledger sums to its
// wallet's balance (Store.VerifyLedger, the check of `admin verify-ledger`)
// and the balance is not negative. Money tests end with it.
func AssertLedgerBalanced(t testing.TB, s *dynamo.Store, orgID string) {
	t.Helper()
	check, err := s.VerifyLedger(context.Background(), orgID)
	if err != nil {
		t.Fatalf("verify ledger of %s: %v", orgID, err)
	}
	if !check.OK || check.Balance < 0 {
		t.Errorf("ledger of %s does not add up: %+v", orgID, check)
	}
}
