package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// WalletStatement returns org's wallet and a page of its ledger, newest
// first, in two requests: one BatchGetItem (wallet, profile, legacy ledger
// counter) and a Query of the ledger that stops at the page's end. Ledger
// entries are small (~250 bytes, up to about 1 KB for those that also hold
// their transaction's change messages), so a deep page costs about one
// read unit per 5 to 20 entries skipped. The total is the entries the wallet counted plus
// those COUNT#LEDGER counted before the wallet did (see walletEntries).
// wallet.ErrNoWallet when the organization has none.
func (s *Store) WalletStatement(ctx context.Context, orgID string, p gifting.PageRequest) (wallet.Statement, error) {
	return s.WalletStatementBefore(ctx, orgID, "", p)
}

// WalletStatementBefore is WalletStatement over the ledger entries older
// than the entry before (the whole ledger when before is ""): a page that
// follows a previous page's Next stays where it was however many entries
// were written since, which page numbers alone cannot. Total stays the
// whole ledger's (wallet.Store).
func (s *Store) WalletStatementBefore(ctx context.Context, orgID, before string, p gifting.PageRequest) (wallet.Statement, error) {
	got, err := s.batchGet(ctx, []item{
		key(orgPK(orgID), walletSK), key(orgPK(orgID), profileSK), key(orgPK(orgID), counterSK(counterLedger)),
	})
	if err != nil {
		return wallet.Statement{}, err
	}
	var (
		st      wallet.Statement
		counted counterItem // frozen: entries written before the wallet counted them
		wc      walletItem
	)
	found := false
	for _, it := range got {
		var err error
		switch attrS(it, "SK") {
		case walletSK:
			found, err = true, unmarshal(it, &wc)
			st.Wallet = wc.wallet()
		case profileSK:
			var org gifting.Organization
			err = unmarshal(it, &org)
			st.Budget = org.Budget
		case counterSK(counterLedger):
			err = unmarshal(it, &counted)
		}
		if err != nil {
			return wallet.Statement{}, err
		}
	}
	if !found {
		return wallet.Statement{}, wallet.ErrNoWallet
	}
	if st.Wallet.OrgID == "" {
		st.Wallet.OrgID = orgID
	}
	entries, exhausted, err := s.ledgerEntries(ctx, orgID, before, p.Offset()+p.Limit)
	if err != nil {
		return wallet.Statement{}, err
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
func (s *Store) ledgerEntries(ctx context.Context, orgID, before string, need int) (entries []wallet.Entry, exhausted bool, err error) {
	exhausted, err = s.eachLedgerEntry(ctx, orgID, before, min(need+1, 10_000), false, func(e wallet.Entry) bool {
		entries = append(entries, e)
		return len(entries) <= need
	})
	return entries, exhausted, err
}

// eachLedgerEntry calls fn with org's ledger entries, newest first from
// the one older than before ("": from the newest), reading pageSize
// entries a request, until fn returns false or the ledger ends
// (exhausted).
func (s *Store) eachLedgerEntry(ctx context.Context, orgID, before string, pageSize int, consistent bool, fn func(wallet.Entry) bool) (exhausted bool, err error) {
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
			var e ledgerItem
			if err := unmarshal(it, &e); err != nil {
				return false, err
			}
			if !fn(e.entry()) {
				return false, nil
			}
		}
	}
	return true, nil
}

// LedgerPage reads up to n ledger entries of org older than the entry
// before ("": from the newest), newest first, strongly consistent
// (wallet.Store).
func (s *Store) LedgerPage(ctx context.Context, orgID, before string, n int) ([]wallet.Entry, error) {
	entries := make([]wallet.Entry, 0, n)
	_, err := s.eachLedgerEntry(ctx, orgID, before, n, true, func(e wallet.Entry) bool {
		entries = append(entries, e)
		return len(entries) < n
	})
	return entries, err
}

// Entry reads one ledger entry of org (wallet.Store).
func (s *Store) Entry(ctx context.Context, orgID, entryID string) (wallet.Entry, bool, error) {
	var e ledgerItem
	found, err := s.get(ctx, orgPK(orgID), ledgerSK(entryID), &e)
	return e.entry(), found, err
}
