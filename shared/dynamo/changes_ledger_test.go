package dynamo_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/oklog/ulid/v2"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/webhook"
)

// TestChangeFeedMergesLedgerRecords: the messages of balance changes,
// which their ledger entries hold, and those of other changes, which have
// records of their own, come out of the feed as one sequence in the order
// they happened, page after page, each once; ledger entries written before
// they held messages (a full page of them) are passed over, not a stop.
func TestChangeFeedMergesLedgerRecords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &testenv.Clock{}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	orgID, _ := testenv.Org(t, s, "feedmerge", 1000)
	c := giftCampaign(t, s, orgID, 40)

	add := func(email string) recipient.Recipient {
		t.Helper()
		res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, email))
		if err != nil {
			t.Fatal(err)
		}
		return res.Recipient
	}
	a := add("a@example.com")
	// Ledger entries as the code before wrote them, without messages: more
	// than a feed page of them, between two changes.
	table := s.Table()
	start := s.Now()
	for i := range 120 {
		id := ulid.MustNew(ulid.Timestamp(start.Add(time.Duration(i)*time.Microsecond)), ulid.DefaultEntropy()).String()
		if _, err := testenv.Client(t).PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, "SK": &types.AttributeValueMemberS{Value: "LEDGER#" + id},
			"entryId": &types.AttributeValueMemberS{Value: id}, "type": &types.AttributeValueMemberS{Value: string(wallet.TopUp)},
			"amount": &types.AttributeValueMemberN{Value: "0"},
		}}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * time.Millisecond)
	testenv.Claim(t, s, orgID, c.CampaignID, a.RecipientID)
	testenv.Ship(t, s, orgID, c.CampaignID, a.RecipientID) // its order ships it (issue 31)
	b := add("b@example.com")
	if _, _, err := s.ChangeBalance(ctx, dynamo.BalanceChange{OrgID: orgID, Delta: 5,
		Entry: wallet.Entry{Type: wallet.TopUp, Reason: "test"}}); err != nil {
		t.Fatal(err)
	}
	clk.Advance(webhook.FeedLag + time.Second)

	type msg struct {
		ID   string `json:"id"`
		Type string `json:"type"`
		Data struct {
			RecipientID string `json:"recipientId"`
			Status      string `json:"status"`
		} `json:"data"`
	}
	decode := func(raw []json.RawMessage) []msg {
		t.Helper()
		out := make([]msg, len(raw))
		for i, r := range raw {
			if err := json.Unmarshal(r, &out[i]); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	whole, err := testenv.Feed(ctx, s, orgID, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	all := decode(whole.Items)
	var kinds []string
	for _, m := range all {
		kinds = append(kinds, m.Type)
	}
	want := []string{
		"recipient.created", "wallet.debited", // add a: one transaction
		// The claim (the gift costs less than was held) opens its order.
		"recipient.status_changed", "order.created", "wallet.refunded",
		"order.shipped", "recipient.status_changed", // the shipment: a record of its own
		"recipient.created", "wallet.debited", // add b
		"wallet.topped_up",
	}
	if len(kinds) != len(want) {
		t.Fatalf("feed holds %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("feed holds %v, want %v", kinds, want)
		}
	}
	if all[0].Data.RecipientID != a.RecipientID || all[7].Data.RecipientID != b.RecipientID {
		t.Errorf("created messages name %s and %s, want %s and %s", all[0].Data.RecipientID, all[7].Data.RecipientID, a.RecipientID, b.RecipientID)
	}

	t.Run("one message a page", func(t *testing.T) {
		after := ""
		for i := range len(all) + 1 {
			page, err := testenv.Feed(ctx, s, orgID, after, 1)
			if err != nil {
				t.Fatal(err)
			}
			got := decode(page.Items)
			if i == len(all) {
				if len(got) != 0 || page.NextCursor != after {
					t.Errorf("past the end: %d messages, cursor %q; want none and %q", len(got), page.NextCursor, after)
				}
				break
			}
			if len(got) != 1 || got[0].ID != all[i].ID || page.NextCursor != all[i].ID {
				t.Fatalf("page %d after %q: %+v (cursor %q), want %s", i, after, got, page.NextCursor, all[i].ID)
			}
			after = page.NextCursor
		}
	})
	t.Run("no record of their own for balance changes", func(t *testing.T) {
		out, err := testenv.Client(t).Query(ctx, &dynamodb.QueryInput{
			TableName: &table, KeyConditionExpression: aws.String("PK = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "ORG#" + orgID + "#CHG"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Items) != 1 {
			t.Errorf("%d change records of their own, want 1 (the move to shipped)", len(out.Items))
		}
	})
}
