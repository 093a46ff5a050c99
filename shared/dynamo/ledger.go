package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/gifting"
)

// WalletStatement is a wallet with a page of its ledger, newest first.
type WalletStatement struct {
	Wallet gifting.Wallet
	// Budget is the organization's budget (currency and amount) from its
	// profile.
	Budget gifting.Budget
	// Entries is the page of ledger entries.
	Entries []gifting.LedgerEntry
	// Total is the number of ledger entries.
	Total int
}

// WalletStatement returns org's wallet and a page of its ledger, newest
// first, in two requests: one BatchGetItem (wallet, profile, ledger
// counter) and a Query of the ledger that stops at the page's end. Ledger
// entries are small (~200 bytes), so a deep page costs about one read unit
// per 20 entries skipped. NOT_FOUND when the organization has no wallet.
func (s *Store) WalletStatement(ctx context.Context, orgID string, p gifting.PageRequest) (WalletStatement, error) {
	got, err := s.batchGet(ctx, []item{
		key(orgPK(orgID), walletSK), key(orgPK(orgID), profileSK), key(orgPK(orgID), counterSK(counterLedger)),
	})
	if err != nil {
		return WalletStatement{}, err
	}
	var st WalletStatement
	var counted counterItem
	found := false
	for _, it := range got {
		var err error
		switch attrS(it, "SK") {
		case walletSK:
			found, err = true, unmarshal(it, &st.Wallet)
		case profileSK:
			var org gifting.Organization
			err = unmarshal(it, &org)
			st.Budget = org.Budget
		case counterSK(counterLedger):
			err = unmarshal(it, &counted)
		}
		if err != nil {
			return WalletStatement{}, err
		}
	}
	if !found {
		return WalletStatement{}, gifting.NotFound("organization", orgID)
	}
	if st.Wallet.OrgID == "" {
		st.Wallet.OrgID = orgID
	}
	entries, exhausted, err := s.ledgerEntries(ctx, orgID, p.Offset()+p.Limit)
	if err != nil {
		return WalletStatement{}, err
	}
	lo, hi := p.Window(len(entries))
	st.Entries = entries[lo:hi]
	st.Total = int(counted.N)
	if exhausted {
		// Read to the end: the exact count, even for entries written
		// without the counter.
		st.Total = len(entries)
	}
	return st, nil
}

// ledgerEntries reads org's ledger newest first until it holds need
// entries; exhausted reports that it read the whole ledger.
func (s *Store) ledgerEntries(ctx context.Context, orgID string, need int) (entries []gifting.LedgerEntry, exhausted bool, err error) {
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{
			":pk":     str(orgPK(orgID)),
			":prefix": str(ledgerPrefix),
		},
		ScanIndexForward: aws.Bool(false),
		Limit:            aws.Int32(int32(min(need+1, 10_000))),
	})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, false, fmt.Errorf("query ledger: %w", err)
		}
		for _, it := range out.Items {
			var e gifting.LedgerEntry
			if err := unmarshal(it, &e); err != nil {
				return nil, false, err
			}
			entries = append(entries, e)
		}
		if len(entries) > need {
			return entries, false, nil
		}
	}
	return entries, true, nil
}
