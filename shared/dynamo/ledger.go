package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// WalletStatement returns org's wallet and a page of its ledger, newest
// first: one BatchGetItem (wallet, profile, legacy ledger counter), then
// for a page after the first a walk of the ledger's Slim entries, keys
// only, up to the page's start (about 1 read unit per 80 entries skipped,
// eventually consistent; from the oldest entry when the page starts in
// the older half, the total being exact: pageStart), then a Query of the ledger that reads the page
// and one entry more. Ledger entries hold their transaction's change
// messages (~250 bytes to about 1 KB), so skipping on the entries
// themselves, as it still does for an organization whose ledger `admin
// migrate` has not indexed yet (walletItem.LedgerIndexed), costs about one
// read unit per 5 to 20 entries. The total is the entries the wallet
// counted plus those COUNT#LEDGER counted before the wallet did (see
// walletEntries). wallet.ErrNoWallet when the organization has none.
func (s *Store) WalletStatement(ctx context.Context, orgID string, p gifting.PageRequest) (wallet.Statement, error) {
	return s.WalletStatementBefore(ctx, orgID, "", p)
}

// WalletStatementBefore is WalletStatement over the ledger entries older
// than the entry before (the whole ledger when before is ""): a page that
// follows a previous page's Next stays where it was however many entries
// were written since, which page numbers alone cannot. Total stays the
// whole ledger's (wallet.Store).
func (s *Store) WalletStatementBefore(ctx context.Context, orgID, before string, p gifting.PageRequest) (wallet.Statement, error) {
	st, counted, wc, err := s.walletHead(ctx, orgID)
	if err != nil {
		return wallet.Statement{}, err
	}
	window := ledgerWindow{before: before, page: p, skip: p.Offset(), limit: p.Limit, total: -1}
	if before == "" {
		// Every entry is counted in the transaction that writes it (by
		// the wallet, or by COUNT#LEDGER before it): the ledger's exact
		// size. From a cursor, how many entries are older is not known.
		window.total = int(counted.N + wc.Entries)
	}
	ended := false
	if wc.LedgerIndexed && window.skip > 0 {
		if ended, err = s.skipLedger(ctx, orgID, &window); err != nil {
			return wallet.Statement{}, err
		}
	}
	read := window.skipped
	if !ended {
		if read, err = s.readLedgerWindow(ctx, orgID, &window); err != nil {
			return wallet.Statement{}, err
		}
	}
	st.Entries = window.entries
	if len(window.entries) == p.Limit && window.more {
		st.Next = window.entries[len(window.entries)-1].EntryID
	}
	st.Total = int(counted.N + wc.Entries)
	if !window.more && before == "" {
		// Read to the end: the exact count, even for entries written
		// without the counter.
		st.Total = read
	}
	return st, nil
}

// walletHead reads org's wallet, its budget and the frozen COUNT#LEDGER in
// one BatchGetItem: the statement without its entries.
func (s *Store) walletHead(ctx context.Context, orgID string) (st wallet.Statement, counted counterItem, wc walletItem, err error) {
	got, err := s.batchGet(ctx, []item{
		key(orgPK(orgID), walletSK), key(orgPK(orgID), profileSK), key(orgPK(orgID), counterSK(counterLedger)),
	})
	if err != nil {
		return st, counted, wc, err
	}
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
			return st, counted, wc, err
		}
	}
	if !found {
		return st, counted, wc, wallet.ErrNoWallet
	}
	if st.Wallet.OrgID == "" {
		st.Wallet.OrgID = orgID
	}
	return st, counted, wc, nil
}

// ledgerWindow is a page of a ledger being read, newest first: skip
// entries older than before ("": from the newest), then limit entries.
type ledgerWindow struct {
	before      string
	page        gifting.PageRequest
	skip, limit int
	// total is the ledger's exact size when the window counts from the
	// newest entry, -1 from a cursor.
	total int
	// skipped counts the entries walked past on the Slim index (before
	// moved to the last of them).
	skipped int
	// entries is the page's entries, and more reports that an entry
	// follows them (false: the walk reached the ledger's end).
	entries []wallet.Entry
	more    bool
}

// skipLedger walks w.skip entries of org's ledger on its Slim entries,
// counting them without reading them back (from the oldest entry when
// that is nearer: pageStart), and moves w past them. Slim is
// eventually consistent: an entry written a moment before may be missing
// from the walk, as if it came an instant later. When the ledger ends
// within the walk, the page is empty and w.skipped is what it holds.
func (s *Store) skipLedger(ctx context.Context, orgID string, w *ledgerWindow) (ended bool, err error) {
	var last string
	var skipped int
	if w.before == "" {
		// From the newest entry: the ledger's size is known, so an old
		// page is found from the oldest entry (pageStart).
		var at item
		at, skipped, err = s.pageStart(ctx, ledgerLPK(orgID), false, w.page, w.total)
		last = attrS(at, "LSK")
	} else {
		in := s.slimQuery(ledgerLPK(orgID), false)
		in.KeyConditionExpression = aws.String("LPK = :lpk AND LSK < :before")
		in.ExpressionAttributeValues[":before"] = str(ledgerSK(w.before))
		last, skipped, err = s.skipEntries(ctx, in, w.skip)
	}
	if err != nil {
		return false, err
	}
	w.skipped, w.skip = skipped, 0
	if last == "" {
		return true, nil
	}
	w.before = strings.TrimPrefix(last, ledgerPrefix)
	return false, nil
}

// readLedgerWindow reads org's ledger from w.before, walking past the
// w.skip entries still to skip (all of them when the ledger is not
// indexed: the entries are read whole), then keeping w's page and reading
// one entry more to learn whether any follows. It returns the number of
// entries the ledger holds up to where the read stopped, skipped ones
// included (the ledger's size when w.more is false).
func (s *Store) readLedgerWindow(ctx context.Context, orgID string, w *ledgerWindow) (int, error) {
	need := w.skip + w.limit
	read := 0
	exhausted, err := s.eachLedgerEntry(ctx, orgID, w.before, min(need+1, 10_000), false, func(e wallet.Entry) bool {
		read++
		if read > need {
			return false
		}
		if read > w.skip {
			w.entries = append(w.entries, e)
		}
		return true
	})
	w.more = !exhausted
	return w.skipped + read, err
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
