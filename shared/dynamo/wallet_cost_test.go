package dynamo_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// moneyCost is what one balance change asks of DynamoDB: its requests by
// operation, the items of its transactions, and the write units AWS would
// bill them, estimated as the benchmark does (2 units per KB of each item
// a transaction writes; DynamoDB Local under-reports transactions), index
// entries left out.
type moneyCost struct {
	requests []string
	items    int
	bytes    int // of the items the transactions put
	units    float64
}

func (c moneyCost) String() string {
	return fmt.Sprintf("%d requests (%s), %d transaction items, %d bytes put, %.0f write units (est.)",
		len(c.requests), strings.Join(c.requests, ", "), c.items, c.bytes, c.units)
}

// costOf meters run, whose work goes through m under ctx.
func costOf(t *testing.T, s *dynamo.Store, run func(ctx context.Context) error) moneyCost {
	t.Helper()
	u := &meter.Usage{Record: true}
	if err := run(meter.WithUsage(context.Background(), u)); err != nil {
		t.Fatal(err)
	}
	var c moneyCost
	for _, call := range u.Calls() {
		c.requests = append(c.requests, call.Op)
		tw, ok := call.Input.(*dynamodb.TransactWriteItemsInput)
		if !ok || call.Err != nil {
			continue
		}
		for _, it := range tw.TransactItems {
			c.items++
			switch {
			case it.Put != nil:
				c.bytes += dynamo.ItemSize(it.Put.Item)
				c.units += 2 * math.Max(1, math.Ceil(float64(dynamo.ItemSize(it.Put.Item))/1024))
			case it.Update != nil:
				stored, err := testenv.Client(t).GetItem(context.Background(), &dynamodb.GetItemInput{TableName: it.Update.TableName, Key: it.Update.Key})
				if err != nil {
					t.Fatal(err)
				}
				c.units += 2 * math.Max(1, math.Ceil(float64(dynamo.ItemSize(stored.Item))/1024))
			default:
				c.units += 2
			}
		}
	}
	return c
}

// TestMoneyPathCost: an add-recipient, an operator's top-up, a claim and an
// expiry that give credits back, a launch's acceptance and its finish cost
// what they cost before the wallet, the recipient and the campaign became
// slices of their own (issue 29): an add-recipient two BatchGetItems and
// one transaction of 5 items (wallet, ledger entry with the change record,
// contact, recipient, campaign counters), a top-up under a request id a
// read of the request's record, a read of the wallet, one transaction of 3
// items (wallet, ledger entry, request record) and a read of the wallet's
// currency; a claim that gives credits back a read of what it claims (one
// BatchGetItem), of the contact and of the wallet and one transaction of 6
// items (wallet, ledger entry, recipient, gift inventory, campaign
// counters, contact), an expiry with a refund a read of the recipient and
// of the wallet and one transaction of 4 items (wallet, ledger entry,
// recipient, campaign counters); a launch of one list reads the campaign,
// the list, its member keys (a Query of each of its two ranges), the gifts and
// the wallet, then commits one transaction of 5 items (wallet, ledger
// entry with the campaign.launched record, campaign, launch record, the
// list's check); its finish with a refund reads the campaign, the launch
// record and the wallet, then commits one transaction of 4 items (wallet,
// ledger entry with the campaign.live record, campaign, launch record).
func TestMoneyPathCost(t *testing.T) {
	t.Parallel()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	orgID, _ := testenv.Org(t, s, "cost", 100)
	c := giftCampaign(t, s, orgID, 10)

	add := costOf(t, s, func(ctx context.Context) error {
		_, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
		return err
	})
	topUp := costOf(t, s, func(ctx context.Context) error {
		_, err := wallet.NewApp(s).TopUpOnce(ctx, wallet.TopUpRequest{OrgID: orgID, RequestID: "inv-1", Credits: 50, Reason: "invoice 1"})
		return err
	})
	if _, err := seed.SeedCatalog(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	// The claim needs the campaign's gift: the catalog, seeded after the
	// add-recipient above was metered without it (with it, the first add
	// of a store also writes the template's email set).
	// Priced 40 a recipient: the coffee (35 credits) gives 5 back.
	dear := giftCampaign(t, s, orgID, 40)
	testenv.SetCampaignStatus(t, s, orgID, dear.CampaignID, campaign.Live)
	claimed, err := testenv.Recipients(s).Write(context.Background(), addInput(orgID, dear.CampaignID, "ann@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	expiring, err := testenv.Recipients(s).Write(context.Background(), addInput(orgID, dear.CampaignID, "bob@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	claim := costOf(t, s, func(ctx context.Context) error {
		_, err := testenv.Recipients(s).Claim(ctx, orgID, dear.CampaignID, claimed.Response.RecipientID, recipient.ClaimInput{GiftID: "gift-artisan-coffee",
			ShippingAddress: recipient.ShippingAddress{Line1: "1 Main Street", City: "Springfield", Zip: "62701", Country: "US"}})
		return err
	})
	expire := costOf(t, s, func(ctx context.Context) error {
		_, err := testenv.Recipients(s).Expire(ctx, orgID, dear.CampaignID, expiring.Response.RecipientID, false)
		return err
	})
	launchOrg, lc := launchFixtureOf(t, s, "cost-launch", 3, "")
	launch := costOf(t, s, func(ctx context.Context) error {
		_, err := testenv.LaunchCampaign(ctx, s, launchOrg, lc.CampaignID, "user-1")
		return err
	})
	// One contact paid for leaves before its slice: the finish refunds it.
	ids, err := contact.NewApp(s, nil).MemberIDs(context.Background(), launchOrg, lc.CampaignData.ContactListID)
	if err != nil {
		t.Fatal(err)
	}
	if err := contact.NewApp(s, nil).DeleteContact(context.Background(), launchOrg, ids[0]); err != nil {
		t.Fatal(err)
	}
	next, _, err := testenv.Campaigns(s).LaunchSlice(context.Background(), launchOrg, lc.CampaignID, "")
	if err != nil {
		t.Fatal(err)
	}
	finish := costOf(t, s, func(ctx context.Context) error {
		_, done, err := testenv.Campaigns(s).LaunchSlice(ctx, launchOrg, lc.CampaignID, next)
		if err == nil && !done {
			err = fmt.Errorf("the launch did not finish at %q", next)
		}
		return err
	})
	t.Logf("add-recipient: %s", add)
	t.Logf("top-up once: %s", topUp)
	t.Logf("claim with a refund: %s", claim)
	t.Logf("expiry with a refund: %s", expire)
	t.Logf("launch acceptance: %s", launch)
	t.Logf("launch finish with a refund: %s", finish)
	for _, tt := range []struct {
		name      string
		got       moneyCost
		requests  int
		items     int
		maxUnits  float64
		operation string
	}{
		// Every balance change counts itself in the month's usage
		// (issue 34, USAGE#<month>): one small item more in each
		// transaction, 2 write units.
		//
		// The contact add-recipient creates has its search entries in the
		// same transaction (issue 30, decision 0008): a word entry for
		// each of jane, doe, jane@example.com and example.com, 2 write
		// units each; the recipient's search entries (decision 0013),
		// jane and doe; and the month's usage (issue 34): 12 items, 24
		// units.
		{"add-recipient", add, 3, 12, 24, "BatchGetItem, BatchGetItem, TransactWriteItems"},
		{"top-up once", topUp, 4, 4, 8, "GetItem, GetItem, TransactWriteItems, GetItem"},
		// The claim opens its order in its transaction (issue 31): one
		// item more, the order (about 1 KB with its address), so 7 items
		// and 18 units, was 6 and 14 (8 and 20 with the usage).
		{"claim with a refund", claim, 4, 8, 20, "BatchGetItem, GetItem, GetItem, TransactWriteItems"},
		// 1.8 KB over 4 items, one of them over
		// 1 KB: 10 units (12 with the usage).
		{"expiry with a refund", expire, 3, 5, 12, "GetItem, GetItem, TransactWriteItems"},
		{"launch acceptance", launch, 7, 6, 14, "GetItem, GetItem, Query, Query, BatchGetItem, GetItem, TransactWriteItems"},
		{"launch finish with a refund", finish, 4, 5, 12, "GetItem, GetItem, GetItem, TransactWriteItems"},
	} {
		if len(tt.got.requests) != tt.requests || tt.got.items != tt.items || tt.got.units > tt.maxUnits ||
			strings.Join(tt.got.requests, ", ") != tt.operation {
			t.Errorf("%s: %s; want %d requests (%s), %d items, at most %.0f write units",
				tt.name, tt.got, tt.requests, tt.operation, tt.items, tt.maxUnits)
		}
	}
	// 100, -10 for jane, +50, -40 for ann and for bob, +5 back from ann's
	// coffee and +40 from bob's expiry.
	assertBalance(t, s, orgID, 105)
	// The campaign keeps what went back apart (issue 35's report): 5 and
	// 40, its spending net of them; and the claim's delay in its
	// histogram.
	got, err := s.LoadCampaign(context.Background(), orgID, dear.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	var timed int64
	for _, n := range got.LiveData.ClaimDelays {
		timed += n
	}
	if got.LiveData.CreditsRefunded != 45 || got.LiveData.CreditsSpent != 80-45 || timed != 1 {
		t.Errorf("campaign: %d credits refunded, %d spent, %d claims timed; want 45, 35 and 1", got.LiveData.CreditsRefunded, got.LiveData.CreditsSpent, timed)
	}
}
