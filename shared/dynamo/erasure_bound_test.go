package dynamo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/erasure"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestErasureWalksFromThePersonsCampaigns: a year of ledger entries and
// orders older than the person's campaign is not read by their erasure
// (one Query that starts after them), while a campaign id that holds no
// time walks them from the start; a person who was never a recipient
// reads neither.
func TestErasureWalksFromThePersonsCampaigns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, table := testenv.Client(t), testenv.Table(t)
	m := meter.New(client)
	s := dynamo.New(m, table)
	const orgID, old = "erase-bound", 250
	yearAgo := time.Now().Add(-365 * 24 * time.Hour)
	for _, prefix := range []string{"LEDGER#", "ORDER#"} {
		for i := range old {
			id := gifting.NewIDAt(yearAgo.Add(time.Duration(i) * time.Minute))
			if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: map[string]types.AttributeValue{
				"PK":   &types.AttributeValueMemberS{Value: "ORG#" + orgID},
				"SK":   &types.AttributeValueMemberS{Value: prefix + id},
				"note": &types.AttributeValueMemberS{Value: strings.Repeat("someone else's record ", 20)},
			}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var p erasure.Person
	p.Add("ada@example.com", "Ada")
	sc := erasure.NewScrubber(p)
	slice := func(j erasure.Job, kind string) (next string, used meter.Counts) {
		t.Helper()
		before := m.Total()
		n, next, err := s.EraseSlice(ctx, orgID, j, kind, sc)
		if err != nil || n != 0 {
			t.Fatalf("%s: %d erased, %v", kind, n, err)
		}
		return next, m.Total().Sub(before)
	}
	recent := erasure.Job{Recipients: []erasure.RecipientRef{{CampaignID: gifting.NewID(), RecipientID: "r1"}}}
	timeless := erasure.Job{Recipients: []erasure.RecipientRef{{CampaignID: "spring-2019", RecipientID: "r1"}}}
	for _, kind := range []string{erasure.KindLedgerEntry, erasure.KindOrder} {
		if next, used := slice(recent, kind); next != "" || used.Requests != 1 || used.ReadUnits > 1 {
			t.Errorf("%s of a recent campaign's recipient: next %q, %d requests, %.1f read units; want one Query past the old records",
				kind, next, used.Requests, used.ReadUnits)
		}
		if next, used := slice(timeless, kind); next == "" || used.ReadUnits < 10 {
			t.Errorf("%s of a campaign id without a time: next %q, %.1f read units; want a page of the old records read",
				kind, next, used.ReadUnits)
		}
		if _, used := slice(erasure.Job{}, kind); used.Requests != 0 {
			t.Errorf("%s of a person never a recipient: %d requests, want none", kind, used.Requests)
		}
	}
}
