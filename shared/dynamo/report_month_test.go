package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// TestReportByEventMonth: the report by month counts each recipient event
// in the month it happened, not in its campaign's creation month. A
// campaign created an hour before a month ends gets five recipients and
// one claim then; in the next month two more claim, the first is
// delivered and leaves feedback, one declines and one expires. Each month
// shows its own events, its credits are the ledger's debits and refunds
// dated in it, the months sum to the campaign's own figures, and the
// ledger sums to the balance.
func TestReportByEventMonth(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Now().UTC()
	thisMonth := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	clk := &testenv.Clock{}
	clk.Advance(-(now.Sub(thisMonth) + time.Hour)) // an hour before this month
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	orgID, _ := testenv.Org(t, s, "months", 1000)
	c := giftCampaign(t, s, orgID, 40)
	ids := make([]string, 5)
	for i, email := range []string{"a@example.com", "b@example.com", "c@example.com", "d@example.com", "e@example.com"} {
		res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, email))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = res.Response.RecipientID
	}
	testenv.Claim(t, s, orgID, c.CampaignID, ids[0])

	clk.Advance(2 * time.Hour) // this month
	testenv.Claim(t, s, orgID, c.CampaignID, ids[1])
	testenv.Claim(t, s, orgID, c.CampaignID, ids[2])
	testenv.Ship(t, s, orgID, c.CampaignID, ids[0])
	if _, err := testenv.Recipients(s).Move(ctx, orgID, c.CampaignID, ids[0], gifting.RecipientDelivered); err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.Recipients(s).Feedback(ctx, orgID, c.CampaignID, ids[0], "like", nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := testenv.Recipients(s).Decline(ctx, orgID, c.CampaignID, ids[3]); err != nil || !ok {
		t.Fatalf("decline: %v, %v", ok, err)
	}
	if ok, err := testenv.Recipients(s).Expire(ctx, orgID, c.CampaignID, ids[4], false); err != nil || !ok {
		t.Fatalf("expire: %v, %v", ok, err)
	}
	testenv.AssertLedgerBalanced(t, s, orgID)

	// The ledger's debits and refunds, by the month of their entries.
	st, err := s.WalletStatement(ctx, orgID, gifting.PageRequest{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	debits, refunds := map[string]int64{}, map[string]int64{}
	for _, e := range st.Entries {
		switch m := e.CreatedAt.UTC().Format("2006-01"); e.Type {
		case wallet.Debit:
			debits[m] += e.Amount
		case wallet.Refund:
			refunds[m] += e.Amount
		}
	}
	last, this := thisMonth.AddDate(0, -1, 0).Format("2006-01"), thisMonth.Format("2006-01")
	if debits[last] != 5*40 || refunds[this] < 2*40 {
		t.Fatalf("ledger: debits %v, refunds %v; want 5 × 40 debited last month, the decline and expiry refunded this one", debits, refunds)
	}

	app := testenv.Campaigns(s)
	rep, err := app.Report(ctx, orgID, campaign.ReportByMonth, thisMonth.AddDate(0, -1, 0), thisMonth.AddDate(0, 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Groups) != 2 || rep.Groups[0].Key != last || rep.Groups[1].Key != this {
		t.Fatalf("groups %+v; want %s and %s", rep.Groups, last, this)
	}
	wantLast := campaign.ReportFigures{Campaigns: 1, RecipientsAdded: 5, Invited: 1, Claimed: 1,
		CreditsSpent: debits[last] - refunds[last], CreditsRefunded: refunds[last], ClaimsTimed: 1, ClaimRate: 1}
	wantThis := campaign.ReportFigures{Invited: 4, Claimed: 2, Delivered: 1, Declined: 1, Expired: 1, Feedback: 1,
		CreditsSpent: -refunds[this], CreditsRefunded: refunds[this], ClaimsTimed: 2, ClaimRate: 0.5}
	for i, want := range []campaign.ReportFigures{wantLast, wantThis} {
		got := rep.Groups[i].ReportFigures
		got.MedianHoursToClaim = 0 // claims within seconds of their recipients' creation: about 0
		if got != want {
			t.Errorf("%s: %+v; want %+v", rep.Groups[i].Key, got, want)
		}
	}

	// The months sum to the campaign's own figures.
	byCampaign, err := app.Report(ctx, orgID, campaign.ReportByCampaign, thisMonth.AddDate(0, -1, 0), thisMonth.AddDate(0, 1, 0))
	if err != nil || len(byCampaign.Groups) != 1 {
		t.Fatalf("by campaign: %+v, %v", byCampaign.Groups, err)
	}
	if got, want := rep.Totals, byCampaign.Groups[0].ReportFigures; got != want {
		t.Errorf("the months' totals %+v; want the campaign's figures %+v", got, want)
	}
}
