package httpapi_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
)

// storedMessages are the ids of every message the change records of orgID
// hold, in commit order, read straight from the table: both ranges (the
// records of their own and the ledger entries), whole, merged by record id.
func storedMessages(t *testing.T, s *dynamo.Store, orgID string) []string {
	t.Helper()
	type rec struct {
		id   string
		msgs int
	}
	var recs []rec
	for _, r := range []struct{ pk, prefix string }{{"ORG#" + orgID + "#CHG", ""}, {"ORG#" + orgID, "LEDGER#"}} {
		table := s.Table()
		in := &dynamodb.QueryInput{TableName: &table, KeyConditionExpression: aws.String("PK = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: r.pk}}}
		if r.prefix != "" {
			in.KeyConditionExpression = aws.String("PK = :pk AND begins_with(SK, :p)")
			in.ExpressionAttributeValues[":p"] = &types.AttributeValueMemberS{Value: r.prefix}
		}
		p := dynamodb.NewQueryPaginator(testenv.Client(t), in)
		for p.HasMorePages() {
			out, err := p.NextPage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				if c, ok := dynamo.ChangeRecordOf(it); ok {
					recs = append(recs, rec{c.ID, len(c.Messages)})
				}
			}
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].id < recs[j].id })
	var ids []string
	for _, r := range recs {
		for i := range r.msgs {
			ids = append(ids, webhook.MessageID(r.id, i))
		}
	}
	return ids
}

// TestFeedPagesHoldEveryMessageOnce: over a launch (its records of many
// messages), add-recipients (ledger entries of two messages each), and
// top-ups (ledger entries of one), the change feed read page by page
// through the API, whatever the page size, gives every message the records
// hold exactly once, in commit order, every page but the last full, each
// recipient message with its recipient.
func TestFeedPagesHoldEveryMessageOnce(t *testing.T) {
	t.Parallel()
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	const launched, adds = 130, 12
	orgID, key := testenv.Org(t, s, "feedpages", (launched+adds)*price+100)
	api := testenv.NewAPI(t, s, key)
	listID, _ := listWithContacts(t, s, orgID, launched)
	c := launchReady(t, api, gifts[1], listID)
	for i := range adds {
		if i == adds/2 {
			if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
				t.Fatalf("launch: %d %s", res.Status, res.Body)
			}
			api.Jobs.Wait()
		}
		if res := api.Do("POST", addPath(c.CampaignID), recipientBody(fmt.Sprintf("late%d@example.com", i), "L")); res.Status != http.StatusOK {
			t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
		}
	}
	clk.add(webhook.FeedLag + time.Second)
	want := storedMessages(t, s, orgID)
	if len(want) < launched+2*adds {
		t.Fatalf("the records hold %d messages; want at least %d", len(want), launched+2*adds)
	}
	for _, limit := range []int{1, 7, 60, 100} {
		t.Run(fmt.Sprintf("pages of %d", limit), func(t *testing.T) {
			var got []string
			after := ""
			for pages := 0; ; pages++ {
				if pages > len(want)+1 {
					t.Fatal("the feed does not end")
				}
				res := api.Do("GET", fmt.Sprintf("/api/campaigns/changes?limit=%d&after=%s", limit, url.QueryEscape(after)), nil)
				var env struct {
					Data struct {
						Items      []message `json:"items"`
						NextCursor string    `json:"nextCursor"`
					} `json:"data"`
				}
				res.JSON(t, &env)
				if res.Status != http.StatusOK {
					t.Fatalf("changes: %d %s", res.Status, res.Body)
				}
				items := env.Data.Items
				if len(items) == 0 {
					break
				}
				if len(items) < limit && len(got)+len(items) < len(want) {
					t.Errorf("page %d holds %d messages of %d, not the last", pages+1, len(items), limit)
				}
				for _, m := range items {
					got = append(got, m.ID)
					if m.Type == "recipient.created" && len(m.Data) < 50 {
						t.Errorf("message %s: recipient.created without its recipient: %s", m.ID, m.Data)
					}
				}
				after = env.Data.NextCursor
			}
			if !slices.Equal(got, want) {
				t.Errorf("the pages hold %d messages; want the %d stored, in order (first difference at %d)", len(got), len(want), firstDifference(got, want))
			}
		})
	}
}

func firstDifference(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
