package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/gifting"
)

// WalletStatement returns org's wallet and a page of its ledger, newest
// first, in two requests: one BatchGetItem (wallet, profile, legacy ledger
// counter) and a Query of the ledger that stops at the page's end. Ledger
// entries are small (~250 bytes, up to about 1 KB for those that also hold
// their transaction's change messages), so a deep page costs about one
// read unit per 5 to 20 entries skipped. The total is the entries the wallet counted plus
// those COUNT#LEDGER counted before the wallet did (see walletEntries).
// NOT_FOUND when the organization has no wallet.
func (s *Store) WalletStatement(ctx context.Context, orgID string, p gifting.PageRequest) (gifting.WalletStatement, error) {
	return s.WalletStatementBefore(ctx, orgID, "", p)
}

// WalletStatementBefore is WalletStatement over the ledger entries older
// than the entry before (the whole ledger when before is ""): a page that
// follows a previous page's Next stays where it was however many entries
// were written since, which page numbers alone cannot. Total stays the
// whole ledger's.
func (s *Store) WalletStatementBefore(ctx context.Context, orgID, before string, p gifting.PageRequest) (gifting.WalletStatement, error) {
	got, err := s.batchGet(ctx, []item{
		key(orgPK(orgID), walletSK), key(orgPK(orgID), profileSK), key(orgPK(orgID), counterSK(counterLedger)),
	})
	if err != nil {
		return gifting.WalletStatement{}, err
	}
	var st gifting.WalletStatement
	var (
		counted counterItem // frozen: entries written before the wallet counted them
		wc      walletCount
	)
	found := false
	for _, it := range got {
		var err error
		switch attrS(it, "SK") {
		case walletSK:
			found, err = true, unmarshal(it, &st.Wallet)
			if err == nil {
				err = unmarshal(it, &wc)
			}
		case profileSK:
			var org gifting.Organization
			err = unmarshal(it, &org)
			st.Budget = org.Budget
		case counterSK(counterLedger):
			err = unmarshal(it, &counted)
		}
		if err != nil {
			return gifting.WalletStatement{}, err
		}
	}
	if !found {
		return gifting.WalletStatement{}, gifting.NotFound("organization", orgID)
	}
	if st.Wallet.OrgID == "" {
		st.Wallet.OrgID = orgID
	}
	entries, exhausted, err := s.ledgerEntries(ctx, orgID, before, p.Offset()+p.Limit)
	if err != nil {
		return gifting.WalletStatement{}, err
	}
	lo, hi := p.Window(len(entries))
	st.Entries = entries[lo:hi]
	if hi > lo && len(entries) > hi {
		st.Next = entries[hi-1].EntryID
	}
	st.Total = int(counted.N + wc.Entries)
	if exhausted && before == "" {
		// Read to the end: the exact count, even for entries written
		// without the counter.
		st.Total = len(entries)
	}
	return st, nil
}

// ledgerEntries reads org's ledger newest first, from the entry older than
// before ("": the newest), until it holds need entries and one more when
// there is one; exhausted reports that it read to the ledger's end.
func (s *Store) ledgerEntries(ctx context.Context, orgID, before string, need int) (entries []gifting.LedgerEntry, exhausted bool, err error) {
	exhausted, err = s.eachLedgerEntry(ctx, orgID, before, min(need+1, 10_000), false, func(e gifting.LedgerEntry) bool {
		entries = append(entries, e)
		return len(entries) <= need
	})
	return entries, exhausted, err
}

// eachLedgerEntry calls fn with org's ledger entries, newest first from
// the one older than before ("": from the newest), reading pageSize
// entries a request, until fn returns false or the ledger ends
// (exhausted).
func (s *Store) eachLedgerEntry(ctx context.Context, orgID, before string, pageSize int, consistent bool, fn func(gifting.LedgerEntry) bool) (exhausted bool, err error) {
	var start item
	if before != "" {
		start = key(orgPK(orgID), ledgerSK(before))
	}
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{
			":pk":     str(orgPK(orgID)),
			":prefix": str(ledgerPrefix),
		},
		ScanIndexForward:  aws.Bool(false),
		ConsistentRead:    aws.Bool(consistent),
		Limit:             aws.Int32(int32(pageSize)),
		ExclusiveStartKey: start,
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return false, fmt.Errorf("query ledger: %w", err)
		}
		for _, it := range out.Items {
			var e gifting.LedgerEntry
			if err := unmarshal(it, &e); err != nil {
				return false, err
			}
			if !fn(e) {
				return false, nil
			}
		}
	}
	return true, nil
}

// LedgerCheck is the outcome of VerifyLedger: the wallet's balance beside
// the sum of its ledger.
type LedgerCheck struct {
	OrganizationID string `json:"organizationId"`
	Balance        int64  `json:"balance"`
	// LedgerSum is the top-ups and refunds minus the debits of every
	// ledger entry (up to the first broken one, see Problem).
	LedgerSum int64 `json:"ledgerSum"`
	// Entries is the number of ledger entries summed.
	Entries int `json:"entries"`
	// OK is true when LedgerSum equals Balance and every entry is sound.
	OK bool `json:"ok"`
	// Problem names the first entry that cannot be summed (an unknown
	// type, a negative amount, a sum out of the range of a balance).
	Problem string `json:"problem,omitempty"`
}

// VerifyLedger sums every entry of org's ledger (all pages, strongly
// consistent reads) and compares the sum with the wallet's balance: money
// that appeared or vanished without a ledger entry, or an entry whose
// amount is not what the wallet moved, makes OK false. Run it when no
// change of the wallet is under way: one made between the reads shows as a
// difference. NOT_FOUND when org has no wallet.
func (s *Store) VerifyLedger(ctx context.Context, orgID string) (LedgerCheck, error) {
	w, err := s.Wallet(ctx, orgID)
	if err != nil {
		return LedgerCheck{}, err
	}
	check := LedgerCheck{OrganizationID: orgID, Balance: w.Balance}
	_, err = s.eachLedgerEntry(ctx, orgID, "", 1000, true, func(e gifting.LedgerEntry) bool {
		amount := e.Amount
		switch {
		case amount < 0:
			check.Problem = fmt.Sprintf("entry %s has a negative amount %d", e.EntryID, amount)
			return false
		case e.Type == gifting.LedgerDebit:
			amount = -amount
		case e.Type != gifting.LedgerTopUp && e.Type != LedgerRefund:
			check.Problem = fmt.Sprintf("entry %s has an unknown type %q", e.EntryID, e.Type)
			return false
		}
		sum, ok := gifting.AddCredits(check.LedgerSum, amount)
		if !ok {
			check.Problem = fmt.Sprintf("entry %s (%s of %d) takes the sum out of the range of a balance", e.EntryID, e.Type, e.Amount)
			return false
		}
		check.LedgerSum = sum
		check.Entries++
		return true
	})
	if err != nil {
		return LedgerCheck{}, err
	}
	check.OK = check.Problem == "" && check.LedgerSum == check.Balance
	return check, nil
}
