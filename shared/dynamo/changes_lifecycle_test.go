package dynamo_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/wire"
)

// beforeChangeDB runs do once, just before the first transaction that
// writes a change record: a write racing the change it records.
type beforeChangeDB struct {
	dynamo.DB
	once sync.Once
	do   func()
}

func (d *beforeChangeDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		if it.Put == nil {
			continue
		}
		if rec, ok := it.Put.Item["rec"].(*types.AttributeValueMemberS); ok && rec.Value == "change" && d.do != nil {
			d.once.Do(d.do)
		}
	}
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

// racingStore returns a store whose writes go through a beforeChangeDB
// (set its do to race the first change it records), a plain store over
// the same table for the racing write, and the clock both read.
func racingStore(t *testing.T) (s, base *dynamo.Store, db *beforeChangeDB, clk *testenv.Clock) {
	t.Helper()
	clk = &testenv.Clock{}
	base = testenv.Store(t, dynamo.WithClock(clk.Now))
	db = &beforeChangeDB{DB: testenv.Client(t)}
	return dynamo.New(db, base.Table(), dynamo.WithClock(clk.Now)), base, db, clk
}

// recorded returns the messages of type typ in orgID's change feed, their
// data decoded into T.
func recorded[T any](t *testing.T, s *dynamo.Store, clk *testenv.Clock, orgID, typ string) []T {
	t.Helper()
	clk.Advance(webhook.FeedLag + time.Second)
	page, err := testenv.Feed(context.Background(), s, orgID, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, raw := range page.Items {
		var m struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		if m.Type != typ {
			continue
		}
		var v T
		if err := json.Unmarshal(m.Data, &v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestCompletionRecordRacingACounter completes a campaign while a
// recipient's feedback is counted between the completion's read and its
// write: the completion reads again, and its campaign.completed record
// holds exactly the campaign stored, counters included.
func TestCompletionRecordRacingACounter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, db, clk := racingStore(t)
	orgID, _ := testenv.Org(t, s, "acme", 100)
	c := giftCampaign(t, s, orgID, 10)
	testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
	db.do = func() {
		_, err := testenv.Client(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(s.Table()),
			Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, "SK": &types.AttributeValueMemberS{Value: "CAMPAIGN#" + c.CampaignID}},
			UpdateExpression:          aws.String("ADD liveData.feedbackCount :one"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}},
		})
		if err != nil {
			t.Error(err)
		}
	}
	answered, err := testenv.Campaigns(s).Move(ctx, orgID, c.CampaignID, campaign.Complete, "user-2", "done")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.Campaign(ctx, orgID, c.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	if fb := stored.CompletionData.FeedbackCount; fb == nil || *fb != 1 {
		t.Fatalf("completionData.feedbackCount %v; want the feedback counted while completing (1)", fb)
	}
	got := recorded[campaign.Campaign](t, s, clk, orgID, gifting.ChangeCampaignCompleted)
	if len(got) != 1 {
		t.Fatalf("%d campaign.completed records, want 1", len(got))
	}
	// Through JSON, as GET shows it and the record holds it.
	want, _ := json.Marshal(stored)
	have, _ := json.Marshal(got[0])
	answer, _ := json.Marshal(answered)
	if string(have) != string(want) || string(answer) != string(want) {
		t.Errorf("recorded %s\nanswered %s\nstored   %s\nwant all three the same", have, answer, want)
	}
}

// TestAudienceReadyRecordedOnce runs an audience build as three runs at
// once (duplicate queue deliveries), with an edit of its name landing just
// before the final commit: exactly one audience.ready is recorded, holding
// the audience exactly as stored, the new name included.
func TestAudienceReadyRecordedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, base, db, clk := racingStore(t)
	orgID, _ := testenv.Org(t, s, "acme", 0)
	price := int64(2)
	aud := engineersAudience(t, s, orgID, 100, func(i int) bool { return i%2 == 0 }, &price)
	app, edits := testenv.Audiences(s), testenv.Audiences(base)
	name := "Engineers"
	db.do = func() {
		if _, err := edits.Update(ctx, orgID, aud.ID, audience.Patch{Name: &name}); err != nil {
			t.Error(err)
		}
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if done, err := app.BuildSlice(ctx, orgID, aud.ID, 30); err != nil || done {
					if err != nil {
						t.Error(err)
					}
					return
				}
			}
			t.Error("the build did not finish in 100 slices")
		}()
	}
	wg.Wait()
	stored, err := app.Get(ctx, orgID, aud.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := recorded[wire.Audience](t, s, clk, orgID, gifting.ChangeAudienceReady)
	if len(got) != 1 {
		t.Fatalf("%d audience.ready records, want exactly 1", len(got))
	}
	if stored.Name != "Engineers" || stored.Status != audience.Ready || stored.TotalMatch != 50 || stored.CreditRequired != 100 {
		t.Errorf("stored audience %+v; want ready, renamed, 50 members for 100 credits", stored)
	}
	want, _ := json.Marshal(wire.AudienceOf(stored))
	if have, _ := json.Marshal(got[0]); string(have) != string(want) {
		t.Errorf("recorded %s\nstored   %s\nwant the same", have, want)
	}
	if failed := recorded[wire.Audience](t, s, clk, orgID, gifting.ChangeAudienceFailed); len(failed) != 0 {
		t.Errorf("%d audience.failed records, want none", len(failed))
	}
}
