package dynamo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/webhook"
)

// slowChangeDB refuses the first conflicts transactions that write a
// change record with a TransactionConflict (DynamoDB's answer under
// contention for a hot item), moving the clock a second on before each
// refusal and calling during(n) after the nth: a write that keeps losing
// for several seconds while the rest of the organization goes on.
type slowChangeDB struct {
	dynamo.DB
	clk       *testenv.Clock
	conflicts int
	during    func(n int)
	refused   int
}

func (d *slowChangeDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	writesChange := slices.ContainsFunc(in.TransactItems, func(it types.TransactWriteItem) bool {
		if it.Put == nil {
			return false
		}
		rec, ok := it.Put.Item["rec"].(*types.AttributeValueMemberS)
		return ok && rec.Value == "change"
	})
	if !writesChange || d.refused >= d.conflicts {
		return d.DB.TransactWriteItems(ctx, in, opts...)
	}
	d.refused++
	d.clk.Advance(time.Second)
	d.during(d.refused)
	reasons := make([]types.CancellationReason, len(in.TransactItems))
	for i := range reasons {
		reasons[i].Code = aws.String("None")
	}
	reasons[0].Code = aws.String("TransactionConflict")
	return nil, &types.TransactionCanceledException{Message: aws.String("Transaction cancelled"), CancellationReasons: reasons}
}

// TestFeedMissesNoChangeThatCommittedLate is an integrator polling the
// change feed while a change keeps conflicting for 8 seconds before it
// commits, and another campaign's pause commits meanwhile. The poller reads
// the other pause once it is FeedLag old, keeps its cursor, and reads on
// from it: every change that committed must reach it, the late one
// included, each once and in id order.
func TestFeedMissesNoChangeThatCommittedLate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// late makes the change that commits late; it reports the type
		// of its message and the campaign it names ("" for none).
		late func(ctx context.Context, s *dynamo.Store, orgID, campaignID string) error
		typ  string
		ref  bool
	}{
		{"a campaign's pause", func(ctx context.Context, s *dynamo.Store, orgID, campaignID string) error {
			_, err := testenv.Campaigns(s).Move(ctx, orgID, campaignID, campaign.Pause, "user-1", "")
			return err
		}, gifting.ChangeCampaignPaused, true},
		{"a top-up under a request id", func(ctx context.Context, s *dynamo.Store, orgID, _ string) error {
			_, err := wallet.NewApp(s).TopUpOnce(ctx, wallet.TopUpRequest{OrgID: orgID, RequestID: "invoice-7", Credits: 50, Reason: "invoice 7"})
			return err
		}, gifting.ChangeWalletToppedUp, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			clk := &testenv.Clock{}
			base := testenv.Store(t, dynamo.WithClock(clk.Now))
			orgID, _ := testenv.Org(t, base, "acme", 100)
			late, other := giftCampaign(t, base, orgID, 10), giftCampaign(t, base, orgID, 10)
			for _, c := range []campaign.Campaign{late, other} {
				testenv.SetCampaignStatus(t, base, orgID, c.CampaignID, campaign.Live)
			}
			var seen []json.RawMessage
			cursor := ""
			poll := func() {
				t.Helper()
				page, err := testenv.Feed(ctx, base, orgID, cursor, 100)
				if err != nil {
					t.Fatal(err)
				}
				seen, cursor = append(seen, page.Items...), page.NextCursor
			}
			db := &slowChangeDB{DB: testenv.Client(t), clk: clk, conflicts: 8, during: func(n int) {
				switch n {
				case 1:
					if _, err := testenv.Campaigns(base).Move(ctx, orgID, other.CampaignID, campaign.Pause, "user-2", ""); err != nil {
						t.Error(err)
					}
				case 7:
					poll() // the other pause is FeedLag old by now
				}
			}}
			s := dynamo.New(db, base.Table(), dynamo.WithClock(clk.Now))
			if err := tt.late(ctx, s, orgID, late.CampaignID); err != nil {
				t.Fatal(err)
			}
			if cursor == "" {
				t.Fatal("the poller saw nothing while the change was conflicting; want the other campaign's pause")
			}
			clk.Advance(webhook.FeedLag + time.Second)
			poll()
			var otherPaused, lateSeen int
			last := ""
			for _, raw := range seen {
				var m struct {
					ID   string `json:"id"`
					Type string `json:"type"`
					Data struct {
						CampaignID string `json:"campaignId"`
					} `json:"data"`
				}
				if err := json.Unmarshal(raw, &m); err != nil {
					t.Fatal(err)
				}
				if m.ID <= last {
					t.Errorf("message %s after %s: the feed went back or repeated", m.ID, last)
				}
				last = m.ID
				switch {
				case m.Type == gifting.ChangeCampaignPaused && m.Data.CampaignID == other.CampaignID:
					otherPaused++
				case m.Type == tt.typ && (!tt.ref || m.Data.CampaignID == late.CampaignID):
					lateSeen++
				}
			}
			if otherPaused != 1 || lateSeen != 1 {
				t.Errorf("the poller saw the other pause %d times and the late %s %d times; want each once (a late record must not sort before a cursor already served)",
					otherPaused, tt.typ, lateSeen)
			}
		})
	}
}

// TestFeedPagesThroughALaunchRecord launches a campaign to 150 contacts:
// one slice, one change record of 150 recipient.created messages. An
// integrator reading the feed a page at a time, with each page's cursor,
// must get every one of them once, whatever the page size.
func TestFeedPagesThroughALaunchRecord(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &testenv.Clock{}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	orgID, c := launchFixture(t, s, 150)
	if _, err := wallet.NewApp(s).TopUpOnce(ctx, wallet.TopUpRequest{OrgID: orgID, RequestID: "more", Credits: 1_000, Reason: "more"}); err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	for cursor, done := "", false; !done; {
		var err error
		if cursor, done, err = testenv.Campaigns(s).LaunchSlice(ctx, orgID, c.CampaignID, cursor); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(webhook.FeedLag + time.Second)
	for _, limit := range []int{100, 40, 7} {
		t.Run(fmt.Sprintf("pages of %d", limit), func(t *testing.T) {
			created := map[string]int{}
			cursor := ""
			for range 200 {
				page, err := testenv.Feed(ctx, s, orgID, cursor, limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Items) == 0 {
					break
				}
				for _, raw := range page.Items {
					var m struct {
						Type string `json:"type"`
						Data struct {
							RecipientID string `json:"recipientId"`
						} `json:"data"`
					}
					if err := json.Unmarshal(raw, &m); err != nil {
						t.Fatal(err)
					}
					if m.Type == gifting.ChangeRecipientCreated {
						created[m.Data.RecipientID]++
					}
				}
				cursor = page.NextCursor
			}
			twice := 0
			for _, n := range created {
				if n > 1 {
					twice++
				}
			}
			if len(created) != 150 || twice != 0 {
				t.Errorf("%d recipients' recipient.created read (%d more than once); want all 150, once each", len(created), twice)
			}
		})
	}
}

// TestFeedPageQueriesEachSourceOnce: a page that a launch's change record
// fills reads each of the feed's two sources (the change records, the
// ledger) with one Query: the ledger is read up to that record, as many
// entries as the page may take, so ledger entries without messages
// before it (written by the code before they held them) cost no second
// Query (the code before: 4). The next page, the feed's end, reads each
// source to its end: 3 Queries, as before. The pages' messages are the
// other tests' concern.
func TestFeedPageQueriesEachSourceOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &testenv.Clock{}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	metered := dynamo.New(meter.New(testenv.Client(t)), s.Table(), dynamo.WithClock(clk.Now))
	orgID, c := launchFixture(t, s, 150)
	if _, err := wallet.NewApp(s).TopUpOnce(ctx, wallet.TopUpRequest{OrgID: orgID, RequestID: "more", Credits: 1_000, Reason: "more"}); err != nil {
		t.Fatal(err)
	}
	putLegacyLedgerEntries(t, s, orgID, 3)
	clk.Advance(time.Second)
	if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	for cursor, done := "", false; !done; {
		var err error
		if cursor, done, err = testenv.Campaigns(s).LaunchSlice(ctx, orgID, c.CampaignID, cursor); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(webhook.FeedLag + time.Second)
	cursor := ""
	for page, want := range []struct{ messages, queries int }{{100, 2}, {54, 3}} {
		u := &meter.Usage{Record: true}
		got, err := testenv.Feed(meter.WithUsage(ctx, u), metered, orgID, cursor, 100)
		if err != nil {
			t.Fatal(err)
		}
		queries := 0
		for _, call := range u.Calls() {
			if _, ok := call.Input.(*dynamodb.QueryInput); ok {
				queries++
			}
		}
		if len(got.Items) != want.messages || queries > want.queries {
			t.Errorf("page %d: %d messages in %d Queries; want %d in at most %d", page+1, len(got.Items), queries, want.messages, want.queries)
		}
		cursor = got.NextCursor
	}
}

// putLegacyLedgerEntries writes n ledger entries of orgID as the code
// before wrote them, without messages, dated now.
func putLegacyLedgerEntries(t *testing.T, s *dynamo.Store, orgID string, n int) {
	t.Helper()
	table := s.Table()
	for range n {
		id := ulid.MustNew(ulid.Timestamp(s.Now()), ulid.DefaultEntropy()).String()
		if _, err := testenv.Client(t).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, "SK": &types.AttributeValueMemberS{Value: "LEDGER#" + id},
			"entryId": &types.AttributeValueMemberS{Value: id}, "type": &types.AttributeValueMemberS{Value: string(wallet.TopUp)},
			"amount": &types.AttributeValueMemberN{Value: "0"},
		}}); err != nil {
			t.Fatal(err)
		}
	}
}
