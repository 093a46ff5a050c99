package main

import (
	"context"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// checkLedgers: each organization's ledger sums to its balance (wallet.App.VerifyLedger, what `admin
// verify-ledger` runs); each campaign's ledger entries (debits less refunds) equal what its recipients
// hold; no recipient is debited twice.
func checkLedgers(ctx context.Context, c *cluster, w *world, s *snapshot) ([]*result, error) {
	sums := &result{name: "every organization's ledger sums to its balance (verify-ledger)"}
	perCampaign := &result{name: "each campaign's debits less refunds = its recipients' charges"}
	double := &result{name: "no recipient debited twice"}
	for _, o := range w.orgs {
		check, err := wallet.NewApp(c.store).VerifyLedger(ctx, o.id)
		if err != nil {
			return nil, err
		}
		sums.checked++
		if !check.OK || check.Balance < 0 {
			sums.fail("%s: balance %d, ledger sum %d over %d entries %s", o.id, check.Balance, check.LedgerSum, check.Entries, check.Problem)
		}
		net, debits, err := ledgerByCampaign(ctx, c.store, o.id)
		if err != nil {
			return nil, err
		}
		for _, cs := range s.campaigns {
			if cs.org != o || (len(cs.recipients) == 0 && net[cs.c.CampaignID] == 0) {
				continue
			}
			perCampaign.checked++
			var charged int64
			for _, rc := range cs.recipients {
				charged += rc.CreditsCharged
			}
			if net[cs.c.CampaignID] != charged {
				perCampaign.fail("%s: ledger %d, recipients hold %d", cs.c.CampaignID, net[cs.c.CampaignID], charged)
			}
		}
		for id, n := range debits {
			double.checked++
			if n > 1 {
				double.fail("%s: recipient %s debited %d times", o.id, id, n)
			}
		}
	}
	return []*result{sums, perCampaign, double}, nil
}

// ledgerByCampaign reads org's whole ledger: the net debit of each campaign, and how many debits name
// each recipient.
func ledgerByCampaign(ctx context.Context, s *dynamo.Store, org string) (net map[string]int64, debits map[string]int, err error) {
	net, debits = map[string]int64{}, map[string]int{}
	before := ""
	for {
		st, err := s.WalletStatementBefore(ctx, org, before, gifting.PageRequest{Page: 1, Limit: 500})
		if err != nil {
			return nil, nil, err
		}
		for _, e := range st.Entries {
			switch e.Type {
			case wallet.Debit:
				net[e.CampaignID] += e.Amount
				if e.RecipientID != "" {
					debits[e.CampaignID+"/"+e.RecipientID]++
				}
			case wallet.Refund:
				net[e.CampaignID] -= e.Amount
			}
		}
		if st.Next == "" {
			return net, debits, nil
		}
		before = st.Next
	}
}
